import { Type } from 'typebox';
import { Id, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of storage configurations. The secret is write-only: answers carry `hasSecret`. */
export const StorageKind = Type.Union([Type.Literal('local'), Type.Literal('s3')]);

const SAFE_PATH = '^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*/?$';

/** S3 fields; which are required depends on `kind` (checked by the service). Local takes none. */
export const StorageSettingsInput = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({ maxLength: 512, description: 'http(s) URL of an S3-compatible server; empty = AWS' }),
    ),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
    bucket: Type.Optional(
      Type.String({ minLength: 3, maxLength: 63, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$' }),
    ),
    accessKeyId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    forcePathStyle: Type.Optional(Type.Boolean()),
    prefix: Type.Optional(
      Type.String({ maxLength: 256, pattern: `(${SAFE_PATH})|^$`, description: 'key prefix inside the bucket' }),
    ),
  },
  { additionalProperties: false },
);

const Name = Type.String({ minLength: 1, maxLength: 64 });
const Secret = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'S3 secret access key; write-only, stored encrypted',
});
const Remark = Type.String({ maxLength: 500 });

export const StorageConfigCreate = Type.Object(
  {
    name: Name,
    kind: StorageKind,
    settings: Type.Optional(StorageSettingsInput),
    secret: Type.Optional(Secret),
    isDefault: Type.Optional(Type.Boolean()),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

/** Omitted fields keep their value; `settings` fields merge into the current ones; the kind cannot change. */
export const StorageConfigUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    settings: Type.Optional(StorageSettingsInput),
    secret: Type.Optional(Secret),
    status: Type.Optional(Status),
    remark: Type.Optional(Remark),
  },
  { additionalProperties: false },
);

export const StorageConfig = Type.Object({
  id: Id,
  name: Type.String(),
  kind: StorageKind,
  settings: Type.Object({
    endpoint: Type.Optional(Type.String()),
    region: Type.Optional(Type.String()),
    bucket: Type.Optional(Type.String()),
    accessKeyId: Type.Optional(Type.String()),
    forcePathStyle: Type.Optional(Type.Boolean()),
    prefix: Type.Optional(Type.String()),
  }),
  hasSecret: Type.Boolean(),
  isDefault: Type.Boolean(),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const StorageConfigQuery = Type.Object({
  ...PageQuery.properties,
  kind: Type.Optional(StorageKind),
  status: Type.Optional(Status),
});
