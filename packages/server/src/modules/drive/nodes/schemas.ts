import { type Static, type TSchema, Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';

/** Wire shapes of the node tree: listings, one node, folder creation, rename, move, copy, the personal views. */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** `T | null` for request fields as one schema: with Ajv's scalar coercion a union would read "" as null. */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

export const DriveRoleSchema = Type.Union([
  Type.Literal('viewer'),
  Type.Literal('downloader'),
  Type.Literal('editor'),
  Type.Literal('manager'),
]);

export const NodeLock = Type.Object({
  userId: Type.Integer(),
  name: Type.String({ description: 'display name of the holder' }),
  expiresAt: Timestamp,
});

export const NodeView = Type.Object({
  id: Type.Integer(),
  spaceId: Type.Integer(),
  parentId: Nullable(Type.Integer()),
  type: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  name: Type.String(),
  size: Type.Integer({ description: 'bytes of the current version (0 for folders)' }),
  mime: Nullable(Type.String()),
  versionNo: Type.Integer(),
  currentVersionId: Nullable(Type.Integer()),
  createdBy: Nullable(Type.Integer()),
  updatedBy: Nullable(Type.Integer()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  starred: Type.Boolean({ description: 'starred by the caller' }),
  lock: Nullable(NodeLock),
  inheritPermissions: Type.Boolean(),
  myRole: Nullable(DriveRoleSchema),
});

export const NodeDetail = Type.Object({
  ...NodeView.properties,
  path: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), {
    description: 'the ancestors the caller may browse, root side first, cut at the first one they may not',
  }),
});

const CONFLICT = 'a live sibling of the same name (any case): keep both ("name (1)"), skip, or fail (409)';
const Conflict = Type.Union([Type.Literal('keepBoth'), Type.Literal('skip'), Type.Literal('fail')], {
  description: CONFLICT,
});

/** Names are checked (and trimmed) by the service: naming.ts; the schema bounds the request. */
const Name = Type.String({ minLength: 1, maxLength: 1024 });

export const NodeListQuery = Type.Object({
  ...PageQuery.properties,
  spaceId: Id,
  parentId: Type.Optional({ ...Id, description: 'the folder; omitted: the space root' }),
  sort: Type.Optional(
    Type.Union([Type.Literal('name'), Type.Literal('updatedAt'), Type.Literal('size'), Type.Literal('type')], {
      default: 'name',
      description: 'after folders first; name is case-insensitive, type is the extension',
    }),
  ),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' })),
});

export const FolderBody = Type.Object({
  spaceId: Id,
  parentId: Type.Optional(OrNull({ ...Id, description: 'the parent folder; null or omitted: the space root' })),
  name: Name,
  conflict: Type.Optional(Conflict),
});

export const FolderResult = Type.Object({
  ...NodeView.properties,
  skipped: Type.Boolean({ description: 'true: conflict skip found this folder already there (status 200)' }),
});

export const RenameBody = Type.Object({ name: Name });

const TreeOpBody = (conflictDefault: string) =>
  Type.Object({
    ids: Type.Array(Id, { minItems: 1, maxItems: 100, uniqueItems: true }),
    targetSpaceId: Type.Optional({
      ...Id,
      description: 'the target space; default: the space of targetParentId or of the sources',
    }),
    targetParentId: OrNull({ ...Id, description: 'the target folder; null: the root of the target space' }),
    conflict: Type.Optional({ ...Conflict, description: `${CONFLICT}; default ${conflictDefault}` }),
  });

export const MoveBody = TreeOpBody('fail');
export const CopyBody = TreeOpBody('keepBoth');

export const MoveResult = Type.Object({
  moved: Type.Array(NodeView, { description: 'the moved nodes (with their subtrees), as they are now' }),
  skippedIds: Type.Array(Type.Integer(), { description: 'sources left in place (conflict skip)' }),
});

export const CopyResult = Type.Object({
  created: Type.Array(NodeView, { description: 'the copies of the sources' }),
  skippedIds: Type.Array(Type.Integer(), { description: 'sources not copied (conflict skip)' }),
  nodeCount: Type.Integer({ description: 'nodes created, the copies of descendants included' }),
  omitted: Type.Integer({
    description: 'descendants left out: the caller may not copy them (below editor), with what is under them',
  }),
});

export const StarredView = Type.Object({ ...NodeView.properties, starredAt: Timestamp });
export const RecentView = Type.Object({ ...NodeView.properties, accessedAt: Timestamp });
export const SharedView = Type.Object({
  ...NodeView.properties,
  grantedRole: DriveRoleSchema,
  grantedBy: Nullable(Type.Integer()),
  grantedByName: Nullable(Type.String()),
  grantedAt: Timestamp,
});

export type NodeViewShape = Static<typeof NodeView>;
