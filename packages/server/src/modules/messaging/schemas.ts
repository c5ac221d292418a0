import { Type } from 'typebox';
import { PageQuery, Status } from '../../platform/http/schemas.ts';

/** Shapes shared by the channel areas' template and send-log endpoints. */
export const TemplateQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'contained in the code or name' })),
  status: Type.Optional(Status),
});

/** A send log's outcome: accepted by the provider, or refused / unreachable with its error. */
export const SendStatus = Type.Union([Type.Literal('sent'), Type.Literal('failed')]);
