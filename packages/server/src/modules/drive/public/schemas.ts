import { Type } from 'typebox';
import { Id, NullableTimestamp, PageOf, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

export const PublicNode = Type.Object({
  id: Id,
  name: Type.String(),
  type: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  size: Type.Integer({ minimum: 0 }),
  mime: Type.Union([Type.String(), Type.Null()]),
  updatedAt: Timestamp,
  preview: Type.Union([Type.Literal('image'), Type.Literal('text'), Type.Literal('none')], {
    description:
      'what GET …/preview shows: a re-encoded image, sanitized text, or nothing (none: the link has no preview ' +
      'capability, a folder, or a type without a preview yet)',
  }),
});

export const ShareMetadata = Type.Object({
  passwordRequired: Type.Boolean(),
  hasSession: Type.Boolean({ description: 'the X-Share-Session header names a valid access session' }),
  node: Type.Optional(PublicNode),
  capabilities: Type.Optional(
    Type.Array(Type.Union([Type.Literal('preview'), Type.Literal('download'), Type.Literal('save')])),
  ),
  expiresAt: Type.Optional(NullableTimestamp),
  watermark: Type.Optional(Type.Boolean()),
});

export const PasswordBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 200 }) });
export const ShareSession = Type.Object({
  sessionToken: Type.String({ description: 'send it as the X-Share-Session header' }),
  expiresAt: Timestamp,
});

export const BrowseQuery = Type.Object({ parentId: Type.Optional(Id), ...PageQuery.properties });
export const PublicNodePage = PageOf(PublicNode);

/** the file (a file under a shared folder; default: the shared file) */
export const PublicContentQuery = Type.Object({ nodeId: Type.Optional(Id) });
