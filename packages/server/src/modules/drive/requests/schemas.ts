import { type Static, type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from '../../../platform/http/schemas.ts';
import { DriveRole } from '../permissions/schemas.ts';

/** Wire shapes of access requests (`/api/drive/access-requests`). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema (a union would let scalar coercion read "" as null). */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });
const Note = Type.String({ maxLength: 500, description: 'a note to the requester (≤ 500 characters)' });
const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() });

export const RequestStatus = Type.Union(
  ['pending', 'approved', 'rejected', 'withdrawn'].map((s) => Type.Literal(s)),
  { description: 'pending until a manager approves or rejects it, or the requester withdraws it' },
);

export const AccessRequestView = Type.Object({
  id: Type.Integer(),
  status: RequestStatus,
  node: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    type: Type.String(),
    path: Type.String({ description: 'folder path in the space, e.g. /Projects/Q3/plan.txt' }),
  }),
  space: Type.Object({ id: Type.Integer(), name: Type.String() }),
  requester: UserRef,
  requestedRole: DriveRole,
  message: Type.String(),
  decidedBy: Nullable(UserRef),
  grantedRole: Nullable(DriveRole),
  grantExpiresAt: NullableTimestamp,
  decisionNote: Nullable(Type.String()),
  decidedAt: NullableTimestamp,
  createdAt: Timestamp,
});

export const AccessRequestTarget = Type.Object({
  ...AccessRequestView.properties,
  yourRole: Nullable(DriveRole),
});

export const RequestCreateBody = Type.Object({
  nodeId: Id,
  role: DriveRole,
  message: Type.Optional(Type.String({ maxLength: 500, description: 'why you need access (≤ 500 characters)' })),
});

export const RequestApproveBody = Type.Object({
  role: Type.Optional(DriveRole),
  expiresAt: Type.Optional(
    OrNull(Type.String({ format: 'date-time', description: 'in the future; absent or null: never expires' })),
  ),
  note: Type.Optional(Note),
});

export const RequestRejectBody = Type.Object({ note: Type.Optional(Note) });
