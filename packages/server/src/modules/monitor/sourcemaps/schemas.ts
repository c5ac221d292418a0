import { Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

export const SourceMap = Type.Object({
  id: Id,
  release: Type.String({ description: 'must equal the release the reporter sends (spec §4.6 rule 5)' }),
  fileName: Type.String({ description: 'bundle file name as in minified stacks, e.g. app.min.js' }),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  sha256: Type.String(),
  uploadedBy: Type.Union([Id, Type.Null()]),
  createdAt: Timestamp,
});

export const SourceMapQuery = Type.Object({
  ...PageQuery.properties,
  release: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'exact release' })),
});
