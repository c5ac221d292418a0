import { and, arrayContains, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { driveNodes, driveRecentAccess } from '../tables.ts';

/**
 * The node tree's core queries, shared by every area of the drive: find, insert (with the
 * tree columns filled), free names, and the rewrite of a subtree's tree columns after a move,
 * a restore to the root or a change of inheritance.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
export type NodeRow = typeof driveNodes.$inferSelect;
export type NewNode = Omit<
  typeof driveNodes.$inferInsert,
  'id' | 'tenantId' | 'ancestorIds' | 'aclChainIds' | 'aclOpen'
>;

export const nodeRows = scoped(driveNodes);

export const findNode = (db: Db, scope: TenantScope, id: number) => nodeRows.findById(db, scope, id);

export async function findLiveNode(db: Db, scope: TenantScope, id: number): Promise<NodeRow | null> {
  const [row] = await db
    .select()
    .from(driveNodes)
    .where(nodeRows.where(scope, and(eq(driveNodes.id, id), isNull(driveNodes.deletedAt))));
  return row ?? null;
}

/** The row, locked for the rest of the transaction. */
export async function lockNode(tx: Db, scope: TenantScope, id: number): Promise<NodeRow | null> {
  const [row] = await tx
    .select()
    .from(driveNodes)
    .where(nodeRows.where(scope, eq(driveNodes.id, id)))
    .for('update');
  return row ?? null;
}

export const findNodes = (db: Db, scope: TenantScope, ids: number[]) =>
  ids.length ? nodeRows.findMany(db, scope, sql`${driveNodes.id} = any(${intArray(ids)})`) : Promise.resolve([]);

/** The tree columns of a child of `parent` (null: the space root). */
export function treeColumnsUnder(parent: NodeRow | null, id: number, inherit = true) {
  const ancestorIds = parent ? [...parent.ancestorIds, parent.id] : [];
  if (!inherit) return { ancestorIds, aclChainIds: [id], aclOpen: false };
  return {
    ancestorIds,
    aclChainIds: parent ? [...parent.aclChainIds, id] : [id],
    aclOpen: parent ? parent.aclOpen : true,
  };
}

/** Inserts a node under `parent`; a live sibling of the same name (any case) is a unique violation. */
export async function insertNode(tx: Db, scope: TenantScope, parent: NodeRow | null, row: NewNode): Promise<NodeRow> {
  // the id first: the node's own acl chain ends with it
  const [next] = await tx
    .select({ id: sql<number>`nextval(pg_get_serial_sequence('drive_nodes', 'id'))::int` })
    .from(sql`(select 1) as one`);
  const id = Number((next as { id: number }).id);
  const [inserted] = await tx
    .insert(driveNodes)
    .values({
      ...row,
      id,
      tenantId: platformKey(scope.tenantId),
      parentId: parent?.id ?? null,
      ...treeColumnsUnder(parent, id, row.inheritPermissions ?? true),
    })
    .returning();
  return inserted as NodeRow;
}

/** Live sibling names (lower case) starting like `stem` under a parent: what a free name must avoid. */
export async function siblingNamesLike(
  tx: Db,
  spaceId: number,
  parentId: number | null,
  stem: string,
): Promise<Set<string>> {
  const rows = await tx
    .select({ name: sql<string>`lower(${driveNodes.name})` })
    .from(driveNodes)
    .where(
      and(
        eq(driveNodes.spaceId, spaceId),
        parentId === null ? isNull(driveNodes.parentId) : eq(driveNodes.parentId, parentId),
        isNull(driveNodes.deletedAt),
        sql`lower(${driveNodes.name}) like ${`${stem.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`}`,
      ),
    );
  return new Set(rows.map((r) => r.name));
}

/** The live sibling of that name (any case), if any. */
export async function liveSibling(
  tx: Db,
  spaceId: number,
  parentId: number | null,
  name: string,
): Promise<NodeRow | null> {
  const [row] = await tx
    .select()
    .from(driveNodes)
    .where(
      and(
        eq(driveNodes.spaceId, spaceId),
        parentId === null ? isNull(driveNodes.parentId) : eq(driveNodes.parentId, parentId),
        isNull(driveNodes.deletedAt),
        sql`lower(${driveNodes.name}) = lower(${name})`,
      ),
    );
  return row ?? null;
}

/** A node's descendants (any state), all of them: ancestor_ids contains it (GIN index). */
export const descendantsOf = (db: Db, scope: TenantScope, id: number, extra?: SQL) =>
  nodeRows.findMany(db, scope, and(arrayContains(driveNodes.ancestorIds, [id]), extra));

/**
 * Gives `node` new tree columns and carries them down its subtree: every descendant's ancestors
 * below the node are kept behind the node's new ancestors, and descendants whose acl chain runs
 * through the node (no break between) take the node's new chain prefix and `acl_open`.
 */
export async function rewriteSubtree(
  tx: Db,
  node: NodeRow,
  next: {
    parentId: number | null;
    ancestorIds: number[];
    aclChainIds: number[];
    aclOpen: boolean;
    inheritPermissions: boolean;
    /** a move to another space carries the subtree there */
    spaceId?: number;
    /** a move that keeps both names the node anew in its new folder (one statement: no interim clash) */
    name?: string;
  },
  now: Date,
) {
  const space = next.spaceId !== undefined ? { spaceId: next.spaceId } : {};
  const id = node.id;
  await tx
    .update(driveNodes)
    .set({
      parentId: next.parentId,
      ancestorIds: next.ancestorIds,
      aclChainIds: next.aclChainIds,
      aclOpen: next.aclOpen,
      inheritPermissions: next.inheritPermissions,
      ...space,
      ...(next.name !== undefined ? { name: next.name } : {}),
      updatedAt: now,
    })
    .where(eq(driveNodes.id, id));
  const anc = driveNodes.ancestorIds;
  const chain = driveNodes.aclChainIds;
  const nodeAndAncestors = intArray([...next.ancestorIds, id]);
  const newChain = intArray(next.aclChainIds);
  await tx
    .update(driveNodes)
    .set({
      ancestorIds: sql`${nodeAndAncestors} || (${anc})[array_position(${anc}, ${id}) + 1:]`,
      aclChainIds: sql`case when ${id} = any(${chain}) then ${newChain} || (${chain})[array_position(${chain}, ${id}) + 1:] else ${chain} end`,
      aclOpen: sql`case when ${id} = any(${chain}) then ${next.aclOpen} else ${driveNodes.aclOpen} end`,
      ...space,
    })
    .where(and(eq(driveNodes.spaceId, node.spaceId), arrayContains(anc, [id])));
}

/** Records that a user opened a node (the recent view keeps the latest access per node). */
export async function touchRecent(db: Db, scope: TenantScope, userId: number, nodeId: number, now: Date) {
  await db
    .insert(driveRecentAccess)
    .values({ userId, nodeId, tenantId: platformKey(scope.tenantId), accessedAt: now })
    .onConflictDoUpdate({ target: [driveRecentAccess.userId, driveRecentAccess.nodeId], set: { accessedAt: now } });
}
