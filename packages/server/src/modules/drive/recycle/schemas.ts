import { type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of delete, the recycle bin, locks and legal holds. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Up to 100 distinct node ids (one transaction: all or nothing). */
export const NodeIdsBody = Type.Object({
  ids: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }),
});

export const DeleteResult = Type.Object({
  deleted: Type.Integer({ minimum: 0, description: 'items now in the recycle bin' }),
});

export const RecycleQuery = Type.Object({ spaceId: Id, ...PageQuery.properties });

export const RecycleItemView = Type.Object({
  id: Type.Integer(),
  spaceId: Type.Integer(),
  name: Type.String(),
  type: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  size: Type.Integer({ description: 'bytes; a folder: the current versions of the files deleted with it' }),
  deletedAt: Timestamp,
  deletedBy: Nullable(Type.Integer()),
  deletedByName: Nullable(Type.String()),
  originalParentId: Nullable(Type.Integer()),
  originalPath: Type.String({ description: 'the folders it was in, `/` for the space root; … for a purged folder' }),
  restoresToOriginal: Type.Boolean({
    description: 'false: the original folder is gone, a restore lands in the space root',
  }),
  expiresAt: Nullable(Timestamp),
  held: Type.Boolean({ description: 'a legal hold reaches it: it cannot be purged' }),
});

export const RestoreResult = Type.Object({
  restored: Type.Array(Type.Object({ id: Type.Integer(), parentId: Nullable(Type.Integer()), name: Type.String() })),
});

export const PurgeResult = Type.Object({ purged: Type.Integer({ minimum: 0 }) });

export const EmptyQuery = Type.Object({ spaceId: Id });
export const EmptyResult = Type.Object({
  purged: Type.Integer({ minimum: 0 }),
  skippedHeld: Type.Integer({ minimum: 0, description: 'entries kept because a legal hold reaches them' }),
});

export const LockBody = Type.Object({
  minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, description: 'default 60' })),
});

export const LockView = Type.Object({
  locked: Type.Boolean(),
  userId: Nullable(Type.Integer()),
  userName: Nullable(Type.String()),
  lockedAt: NullableTimestamp,
  expiresAt: NullableTimestamp,
});

const AuditText = Type.String({ minLength: 1, maxLength: 500 });

export const HoldCreateBody = Type.Object({ nodeId: Id, reason: AuditText });
export const HoldReleaseBody = Type.Object({ note: AuditText });
export const HoldListQuery = Type.Object({
  ...PageQuery.properties,
  spaceId: Type.Optional(Id),
  active: Type.Optional(Type.Boolean()),
});

export const HoldView = Type.Object({
  id: Type.Integer(),
  spaceId: Type.Integer(),
  nodeId: Type.Integer(),
  nodeName: Type.String(),
  nodeDeleted: Type.Boolean(),
  reason: Type.String(),
  active: Type.Boolean(),
  placedBy: Nullable(Type.Integer()),
  placedByName: Nullable(Type.String()),
  placedAt: Timestamp,
  releasedBy: Nullable(Type.Integer()),
  releasedByName: Nullable(Type.String()),
  releasedAt: NullableTimestamp,
  releaseNote: Nullable(Type.String()),
});
