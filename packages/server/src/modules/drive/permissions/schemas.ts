import { type Static, type TSchema, Type } from 'typebox';
import { Id, NullableTimestamp, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of grants, inheritance and the access explanation (`/api/drive/nodes/{id}/…`). */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema (a union would let scalar coercion read "" as null). */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });
const When = (description: string) => OrNull(Type.String({ format: 'date-time', description }));

export const DriveRole = Type.Union(
  [Type.Literal('viewer'), Type.Literal('downloader'), Type.Literal('editor'), Type.Literal('manager')],
  { description: 'ascending: viewer (browse, preview), downloader, editor, manager' },
);
export const SubjectType = Type.Union(
  [Type.Literal('user'), Type.Literal('department'), Type.Literal('role'), Type.Literal('group')],
  { description: 'a department includes the members of its sub-departments; group = user group' },
);

export const SubjectView = Type.Object({
  type: SubjectType,
  id: Type.Integer(),
  name: Type.String({ description: 'display name; "<type> #<id>" once the subject is gone' }),
});
const NodeRef = Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.String() });
const UserRef = Nullable(Type.Object({ id: Type.Integer(), name: Type.String() }));

export const GrantView = Type.Object({
  id: Type.Integer(),
  nodeId: Type.Integer({ description: 'the node the grant is on' }),
  nodeName: Type.String(),
  inherited: Type.Boolean({ description: 'true: on a node above, reaching this one through its acl chain' }),
  subject: SubjectView,
  role: DriveRole,
  expiresAt: NullableTimestamp,
  expired: Type.Boolean({ description: 'an expired grant no longer applies' }),
  createdBy: UserRef,
  createdAt: Timestamp,
});

export const PermissionsView = Type.Object({
  nodeId: Type.Integer(),
  inheritPermissions: Type.Boolean({ description: 'false: inheritance is broken at this node' }),
  aclOpen: Type.Boolean({ description: "true: nothing above breaks inheritance, so the space's roles reach the node" }),
  breakAt: Nullable(
    Type.Object({ ...NodeRef.properties }, { description: 'where inheritance is broken (this node or above)' }),
  ),
  grants: Type.Array(GrantView, { description: 'direct grants first, then inherited ones, nearest first' }),
});

export const GrantCreateBody = Type.Object({
  subjectType: SubjectType,
  subjectId: Id,
  role: DriveRole,
  expiresAt: Type.Optional(When('in the future; absent or null: never expires')),
});

export const GrantUpdateBody = Type.Object({
  role: Type.Optional(DriveRole),
  expiresAt: Type.Optional(When('in the future; null: never expires')),
});

export const GrantParams = Type.Object({ id: Id, grantId: Id });

export const InheritBody = Type.Object({
  inherit: Type.Boolean({ description: 'false breaks inheritance at the node; true restores it' }),
  copyInherited: Type.Optional(
    Type.Boolean({
      description:
        'on a break: copy the live grants that reached the node from above onto it (default true), so nobody loses a grant; the space role is cut either way',
    }),
  ),
});

export const AccessQuery = Type.Object({
  subjectType: Type.Optional(SubjectType),
  subjectId: Type.Optional(Id),
});

const SourceView = Type.Object({
  kind: Type.Union(
    ['admin', 'owner', 'departmentHead', 'departmentMember', 'signedIn', 'member', 'grant'].map((k) => Type.Literal(k)),
  ),
  role: DriveRole,
  subject: Type.Optional(SubjectView),
  nodeId: Type.Optional(Type.Integer()),
  nodeName: Type.Optional(Type.String()),
  expiresAt: Type.Optional(NullableTimestamp),
  applies: Type.Boolean({ description: 'false: shown for understanding, it does not count' }),
  reason: Type.Optional(Type.String()),
  description: Type.String({ description: 'the source in words' }),
});

export const AccessView = Type.Object({
  subject: SubjectView,
  role: Nullable(DriveRole),
  summary: Type.String({ description: 'the answer in one line' }),
  aclOpen: Type.Boolean(),
  breakAt: Nullable(NodeRef),
  chain: Type.Array(NodeRef, { description: 'the nodes whose grants reach this one, top first' }),
  sources: Type.Array(SourceView),
});
