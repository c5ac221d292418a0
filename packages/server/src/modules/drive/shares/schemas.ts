import { type Static, type TSchema, Type } from 'typebox';
import { AbsoluteUrl } from '../../../platform/http/public-links.ts';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import { EXTENSION, EXTERNAL_SHARE_MAX_DAYS_DEFAULT } from '../settings.ts';

/** Wire shapes of share-link management (`/api/drive/share-links`). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema (a union would let scalar coercion read "" as null). */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

export const MAX_LINK_COUNT = 1_000_000;
export const MAX_ALLOWED_IPS = 50;

const Capability = Type.Union(
  ['preview', 'download', 'save'].map((c) => Type.Literal(c)),
  { description: 'preview: view in the browser; download: get the bytes; save: copy into the visitor’s own drive' },
);
const Capabilities = Type.Array(Capability, { minItems: 1, maxItems: 3, description: 'default [preview]' });
const Title = Type.String({ maxLength: 100, description: '≤ 100 characters' });
const Password = Type.String({ minLength: 8, maxLength: 128, description: '8–128 characters' });
/** When expiresAt is required: a tenant setting decides, so the schema says it in words. */
const EXPIRY_RULE =
  "Required while the tenant's drive setting externalShareMaxDays is above 0 (default " +
  `${EXTERNAL_SHARE_MAX_DAYS_DEFAULT}; administrators change it with PUT /api/settings/drive): without it the link is ` +
  'refused (400 request.validation_failed naming expiresAt), and it may be at most that many days ahead. ' +
  'When the setting is 0 it is optional, and a link without it never expires.';
const ExpiresAt = Type.String({ format: 'date-time', description: `In the future. ${EXPIRY_RULE}` });
const ExpiresAtOrNull = OrNull(
  Type.String({
    format: 'date-time',
    description:
      'In the future; absent: unchanged. null removes the expiry, which is refused while the drive setting ' +
      `externalShareMaxDays is above 0 (default ${EXTERNAL_SHARE_MAX_DAYS_DEFAULT}; 400 request.validation_failed ` +
      'naming expiresAt); a new date may be at most that many days ahead.',
  }),
);
const Limit = (what: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_LINK_COUNT, description: `${what}; absent or null: unlimited` });
const AllowedIps = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: MAX_ALLOWED_IPS,
  description: 'IPv4/IPv6 addresses or CIDR ranges the link may be opened from; empty: anywhere',
});

export const MAX_COLLECT_MB = 1024 * 1024;
export const MAX_INSTRUCTIONS = 2000;

/** A collection link's policy; on a change, only the fields given change. */
const CollectBody = Type.Object(
  {
    maxFileSizeMb: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_COLLECT_MB,
        description: "≤ the tenant's collectMaxFileSizeMb (its default)",
      }),
    ),
    allowedExtensions: Type.Optional(
      Type.Array(Type.String({ pattern: EXTENSION }), {
        maxItems: 100,
        description: 'pdf, .docx, tar.gz…; case-insensitive; empty: any (blockedExtensions still apply)',
      }),
    ),
    requireName: Type.Optional(Type.Boolean({ description: 'a submission must carry submitterName' })),
    maxFiles: Type.Optional(OrNull(Limit('how many files the link takes in all'))),
    maxTotalMb: Type.Optional(
      OrNull(
        Type.Integer({
          minimum: 1,
          maximum: MAX_COLLECT_MB * 1024,
          description: 'how many MB the link takes in all; absent or null: unlimited',
        }),
      ),
    ),
    instructions: Type.Optional(Type.String({ maxLength: MAX_INSTRUCTIONS, description: 'shown to submitters' })),
  },
  { description: "kind 'collect' only" },
);

const Kind = Type.Union([Type.Literal('share'), Type.Literal('collect')], {
  description:
    'share (default): others open the node; collect: a folder anyone with the link uploads into, never lists nor downloads from (capabilities, maxDownloadCount and watermark do not apply)',
});

export const ShareLinkCreateBody = Type.Object({
  nodeId: Id,
  kind: Type.Optional(Kind),
  collect: Type.Optional(CollectBody),
  title: Type.Optional(Title),
  password: Type.Optional(Password),
  expiresAt: Type.Optional(ExpiresAt),
  maxAccessCount: Type.Optional(Limit('how many times the link may be opened')),
  maxDownloadCount: Type.Optional(Limit('how many downloads the link allows')),
  allowedIps: Type.Optional(AllowedIps),
  capabilities: Type.Optional(Capabilities),
  watermark: Type.Optional(Type.Boolean()),
});

export const ShareLinkUpdateBody = Type.Object({
  title: Type.Optional(Title),
  password: Type.Optional(OrNull(Password)),
  expiresAt: Type.Optional(ExpiresAtOrNull),
  maxAccessCount: Type.Optional(OrNull(Limit('how many times the link may be opened'))),
  maxDownloadCount: Type.Optional(OrNull(Limit('how many downloads the link allows'))),
  allowedIps: Type.Optional(AllowedIps),
  capabilities: Type.Optional(Capabilities),
  watermark: Type.Optional(Type.Boolean()),
  collect: Type.Optional(CollectBody),
});

export const ShareLinkSpaceQuery = Type.Object({
  spaceId: Id,
  ...PageQuery.properties,
});

export const ShareLinkState = Type.Union(
  ['active', 'expired', 'exhausted', 'revoked', 'disabled'].map((s) => Type.Literal(s)),
  {
    description:
      'revoked; disabled (external sharing is off for the tenant or the space); expired; exhausted (an access or download limit, or a collection limit, is reached); else active',
  },
);

/** A collection link's policy with what it has received so far. */
export const CollectView = Type.Object({
  maxFileSizeMb: Type.Integer(),
  allowedExtensions: Type.Array(Type.String()),
  requireName: Type.Boolean(),
  maxFiles: Nullable(Type.Integer()),
  maxTotalMb: Nullable(Type.Integer()),
  instructions: Type.String(),
  fileCount: Type.Integer({ description: 'files received (purged ones included)' }),
  bytes: Type.Integer({ description: 'bytes received' }),
  remainingFiles: Nullable(Type.Integer({ description: 'null: unlimited' })),
  remainingBytes: Nullable(Type.Integer({ description: 'null: unlimited' })),
});

export const ShareLinkView = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  node: Type.Object({ id: Type.Integer(), name: Type.String() }),
  spaceId: Type.Integer(),
  title: Type.String(),
  hasPassword: Type.Boolean(),
  capabilities: Type.Array(Type.String()),
  expiresAt: NullableTimestamp,
  maxAccessCount: Nullable(Type.Integer()),
  accessCount: Type.Integer(),
  maxDownloadCount: Nullable(Type.Integer()),
  downloadCount: Type.Integer(),
  allowedIps: Type.Array(Type.String()),
  watermark: Type.Boolean(),
  collect: Nullable(CollectView),
  status: Type.String({ description: 'active | revoked' }),
  state: ShareLinkState,
  revokedAt: NullableTimestamp,
  revokedBy: Nullable(Type.Integer()),
  createdBy: Type.Object({ id: Type.Integer(), name: Type.String() }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** A link with its token and URL: to its creator and the node's managers only. */
export const ShareLinkWithToken = Type.Object({
  ...ShareLinkView.properties,
  token: Type.String(),
  url: AbsoluteUrl(
    'PUBLIC_BASE_URL + /s/<token>: the web console page of the link (its JSON API: /api/drive/public/shares/<token>)',
  ),
  shortUrl: Nullable(
    AbsoluteUrl('PUBLIC_BASE_URL + /api/drive/public/s/<code>, once made (POST …/short-link); redirects to url'),
  ),
});

export const QrQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('svg'), Type.Literal('png')], { description: 'default svg' })),
  target: Type.Optional(
    Type.Union([Type.Literal('full'), Type.Literal('short')], {
      description: 'the URL encoded: full (default) or short (the link must have a short link)',
    }),
  ),
  size: Type.Optional(
    Type.Integer({ minimum: 64, maximum: 1024, description: 'PNG width and height in pixels, 64–1024; default 256' }),
  ),
});

export const ShortCodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) });

export const ShortLinkTarget = Type.Object({
  url: AbsoluteUrl("the share link's full URL (its ShareLinkWithToken url)"),
});
