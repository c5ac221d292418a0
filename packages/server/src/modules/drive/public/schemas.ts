import { Type } from 'typebox';
import { envelopeError } from '../../../platform/http/route.ts';
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

/** What a collection link takes (its totals are the creator's business: only what is left shows). */
export const PublicCollect = Type.Object({
  maxFileSizeMb: Type.Integer(),
  allowedExtensions: Type.Array(Type.String(), { description: 'empty: any extension the tenant does not block' }),
  requireName: Type.Boolean(),
  maxFiles: Type.Union([Type.Integer(), Type.Null()]),
  maxTotalMb: Type.Union([Type.Integer(), Type.Null()]),
  instructions: Type.String(),
  remainingFiles: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
  remainingBytes: Type.Union([Type.Integer(), Type.Null()], { description: 'null: unlimited' }),
});

export const ShareMetadata = Type.Object({
  passwordRequired: Type.Boolean(),
  hasSession: Type.Boolean({
    description: 'the X-Share-Session header (or the atrium_share_session cookie) names a valid access session',
  }),
  kind: Type.Optional(
    Type.Union([Type.Literal('share'), Type.Literal('collect')], {
      description: 'collect: a folder to upload into (POST …/submissions); it is never listed',
    }),
  ),
  node: Type.Optional(PublicNode),
  collect: Type.Optional(PublicCollect),
  capabilities: Type.Optional(
    Type.Array(Type.Union([Type.Literal('preview'), Type.Literal('download'), Type.Literal('save')])),
  ),
  expiresAt: Type.Optional(NullableTimestamp),
  watermark: Type.Optional(Type.Boolean()),
  remainingDownloads: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'downloads (and saves to a drive) the link still allows; null: unlimited',
    }),
  ),
});

export const PasswordBody = Type.Object({
  password: Type.String({ minLength: 1, maxLength: 200 }),
  cookie: Type.Optional(Type.Boolean({ description: 'true: the session as an HttpOnly cookie, not in the answer' })),
});
export const ShareSession = Type.Object({
  sessionToken: Type.Optional(
    Type.String({
      description: 'send it as the X-Share-Session header; absent when it went into the atrium_share_session cookie',
    }),
  ),
  expiresAt: Timestamp,
});

export const BrowseQuery = Type.Object({ parentId: Type.Optional(Id), ...PageQuery.properties });
export const PublicNodePage = PageOf(PublicNode);

/** the file (a file under a shared folder; default: the shared file) */
export const PublicContentQuery = Type.Object({ nodeId: Type.Optional(Id) });

export const SaveBody = Type.Object({
  nodeId: Type.Optional(
    Type.Integer({ ...Id, description: 'the shared node (default) or a node under the shared folder' }),
  ),
  targetParentId: Type.Optional(
    Type.Integer({
      ...Id,
      description: 'a folder you may create in (editor or above); default: your personal space root',
    }),
  ),
});

export const SaveResult = Type.Object({
  node: Type.Object({
    id: Id,
    name: Type.String({ description: 'kept-both: "name (1).ext" when the name is taken' }),
    type: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
    spaceId: Id,
    parentId: Type.Union([Id, Type.Null()]),
  }),
  nodeCount: Type.Integer({ minimum: 1, description: 'nodes created' }),
  bytes: Type.Integer({ minimum: 0, description: 'bytes charged to the target space' }),
});

/** Every route that opens a link by its token (link-access.ts) answers 410 once the link is gone. */
export const goneLink = {
  410: envelopeError(
    'drive.share_revoked, drive.share_expired, or drive.share_exhausted (past its access or download count): the link no longer opens',
  ),
};

/** What a preview is (public-service.ts preview): re-encoded images, or text as sanitized UTF-8. */
export const previewResponses = {
  ...goneLink,
  200: {
    description: 'The preview: JPEG (or PNG when transparent) for images, sanitized text/plain UTF-8 for text',
    content: {
      'image/jpeg': Type.String({ format: 'binary' }),
      'image/png': Type.String({ format: 'binary' }),
      'text/plain': Type.String(),
    },
  },
  304: { description: 'Not Modified: If-None-Match names the current preview' },
  415: envelopeError('drive.preview_unavailable: no preview for this type of file; `node` carries its metadata', {
    node: Type.Object({
      id: Id,
      name: Type.String(),
      mime: Type.Union([Type.String(), Type.Null()]),
      size: Type.Integer(),
      updatedAt: Timestamp,
    }),
  }),
  422: envelopeError('drive.preview_unreadable (not a readable image) or drive.preview_too_large'),
};
