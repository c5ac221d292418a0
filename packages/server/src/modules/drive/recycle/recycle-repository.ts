import { and, desc, eq, gt, isNotNull, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { type SubjectSet, visibleNodes } from '../access/access-repository.ts';
import { type NodeRow, nodeRows } from '../nodes/node-repository.ts';
import { driveNodes } from '../tables.ts';

/**
 * The recycle bin's queries (spec §3.5). Deleting node X marks X and its live descendants with
 * `trash_root_id = X`; the bin lists the trash roots (`trash_root_id = id`), and a restore or a
 * purge handles exactly the nodes of one root. Every write locks the subtrees first, in one
 * order (shallowest first, then by id), so deletes, restores and purges of overlapping trees
 * wait for each other instead of interleaving or deadlocking.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
const depth = sql`cardinality(${driveNodes.ancestorIds})`;

/**
 * The roots and all their descendants (any state), and the nodes `alsoIds` (a restore's target
 * folders), locked for the rest of the transaction in one statement, shallowest first.
 */
export async function lockTrees(
  tx: Db,
  scope: TenantScope,
  rootIds: number[],
  alsoIds: number[] = [],
): Promise<NodeRow[]> {
  if (rootIds.length === 0) return [];
  const ids = intArray(rootIds);
  return tx
    .select()
    .from(driveNodes)
    .where(
      nodeRows.where(
        scope,
        sql`(${driveNodes.id} = any(${intArray([...rootIds, ...alsoIds])}) or ${driveNodes.ancestorIds} && ${ids})`,
      ),
    )
    .orderBy(depth, driveNodes.id)
    .for('update');
}

/** Puts a live node and its live descendants in the recycle bin under `rootId`; answers how many. */
export async function softDelete(tx: Db, scope: TenantScope, rootId: number, by: number, now: Date): Promise<number> {
  const rows = await tx
    .update(driveNodes)
    .set({ deletedAt: now, deletedBy: by, trashRootId: rootId })
    .where(
      nodeRows.where(
        scope,
        and(
          or(eq(driveNodes.id, rootId), sql`${driveNodes.ancestorIds} @> ${intArray([rootId])}`),
          isNull(driveNodes.deletedAt),
        ),
      ),
    )
    .returning({ id: driveNodes.id });
  return rows.length;
}

/** A trash root's new name (before its restore: a name taken meanwhile by a live sibling). */
export async function renameNode(tx: Db, id: number, name: string) {
  await tx.update(driveNodes).set({ name }).where(eq(driveNodes.id, id));
}

/** Brings back every node a delete of `rootId` put in the bin; a live sibling of the root's name is a unique violation. */
export async function restoreTrash(tx: Db, rootId: number): Promise<number> {
  const rows = await tx
    .update(driveNodes)
    .set({ deletedAt: null, deletedBy: null, trashRootId: null })
    .where(eq(driveNodes.trashRootId, rootId))
    .returning({ id: driveNodes.id });
  return rows.length;
}

/** Deletes node rows for good (their grants, stars, recent access, versions and renditions cascade). */
export async function deleteNodes(tx: Db, ids: number[]) {
  if (ids.length) await tx.delete(driveNodes).where(sql`${driveNodes.id} = any(${intArray(ids)})`);
}

/**
 * A page of a space's trash roots the caller may browse (the acl columns of a deleted node still
 * say who could see it), newest first, with each root's bytes: the current versions of the
 * files its delete put in the bin.
 */
export async function trashPage(
  db: Db,
  scope: TenantScope,
  spaceId: number,
  access: { set: SubjectSet; spaceRank: number; now: Date },
  req: PageRequest,
) {
  const where = nodeRows.where(
    scope,
    and(
      eq(driveNodes.spaceId, spaceId),
      isNotNull(driveNodes.deletedAt),
      eq(driveNodes.trashRootId, driveNodes.id),
      visibleNodes(access.set, access.spaceRank, access.now),
    ),
  );
  // spelled out: a one-table select names its columns unqualified, even inside a subquery
  const bytes = sql<string>`(select coalesce(sum(m.size), 0) from ${driveNodes} m
    where m.trash_root_id = "drive_nodes"."id" and m.type = 'file')`;
  const [list, totals] = await Promise.all([
    db
      .select({ node: driveNodes, bytes })
      .from(driveNodes)
      .where(where)
      .orderBy(desc(driveNodes.deletedAt), desc(driveNodes.id))
      .limit(req.pageSize)
      .offset((req.page - 1) * req.pageSize),
    db.select({ n: sql<number>`count(*)::int` }).from(driveNodes).where(where),
  ]);
  return {
    list: list.map((r) => ({ node: r.node, bytes: Number(r.bytes) })),
    total: Number(totals[0]?.n ?? 0),
    page: req.page,
    pageSize: req.pageSize,
  };
}

/**
 * Claims up to `limit` trash roots of a tenant after `afterId` (by id), of one space or deleted
 * before a cutoff: locked, skipping those another transaction holds (another instance's
 * retention run, a restore under way), so several instances share the work.
 */
export async function claimTrashRoots(
  tx: Db,
  scope: TenantScope,
  q: { spaceId?: number; deletedBefore?: Date; afterId: number; limit: number },
): Promise<NodeRow[]> {
  const conds: SQL[] = [
    isNotNull(driveNodes.deletedAt),
    eq(driveNodes.trashRootId, driveNodes.id),
    gt(driveNodes.id, q.afterId),
  ];
  if (q.spaceId !== undefined) conds.push(eq(driveNodes.spaceId, q.spaceId));
  if (q.deletedBefore !== undefined) conds.push(lt(driveNodes.deletedAt, q.deletedBefore));
  return tx
    .select()
    .from(driveNodes)
    .where(nodeRows.where(scope, and(...conds)))
    .orderBy(driveNodes.id)
    .limit(q.limit)
    .for('update', { skipLocked: true });
}

/** The tenants (null: platform scope) that have anything in a recycle bin. */
export async function tenantsWithTrash(db: Db): Promise<(number | null)[]> {
  const rows = await db
    .selectDistinct({ tenantId: driveNodes.tenantId })
    .from(driveNodes)
    .where(and(isNotNull(driveNodes.deletedAt), eq(driveNodes.trashRootId, driveNodes.id)));
  return rows.map((r) => r.tenantId);
}
