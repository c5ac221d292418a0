import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped, tenantFilter } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { driveLegalHolds, driveNodes } from '../tables.ts';

/** Legal holds (spec §2.2): at most one active per node (partial unique index drive_legal_holds_active). */
type TenantScope = Pick<Scope, 'tenantId'>;
export type HoldRow = typeof driveLegalHolds.$inferSelect;

export const holdRows = scoped(driveLegalHolds);

/** A unique violation (drive_legal_holds_active) when the node already has an active hold. */
export const insertHold = (
  tx: Db,
  scope: TenantScope,
  row: { spaceId: number; nodeId: number; reason: string; placedBy: number | null; placedAt: Date },
) => holdRows.insert(tx, scope, row);

/** Releases an active hold; null when it is not found or no longer active. */
export async function releaseHold(
  tx: Db,
  scope: TenantScope,
  id: number,
  by: { releasedBy: number | null; releasedAt: Date; releaseNote: string },
): Promise<HoldRow | null> {
  const [row] = await tx
    .update(driveLegalHolds)
    .set({ ...by, active: false })
    .where(holdRows.where(scope, and(eq(driveLegalHolds.id, id), eq(driveLegalHolds.active, true))))
    .returning();
  return row ?? null;
}

export const findHold = (db: Db, scope: TenantScope, id: number) => holdRows.findById(db, scope, id);

/**
 * For each of `nodeIds` under a legal hold, one active hold that reaches it: on the node itself,
 * on an ancestor, or on a descendant (any state: a subtree in the recycle bin is held as well).
 * What delete, purge, empty, retention and a space's delete refuse or skip.
 */
export async function heldAmong(
  db: Db,
  scope: TenantScope,
  nodeIds: number[],
): Promise<{ nodeId: number; holdNodeId: number; holdNodeName: string }[]> {
  if (nodeIds.length === 0) return [];
  const result = await db.execute(sql`
    select r.id as "nodeId", h.node_id as "holdNodeId", hn.name as "holdNodeName"
    from ${driveNodes} r
    join lateral (
      select lh.node_id from ${driveLegalHolds} lh join ${driveNodes} n on n.id = lh.node_id
      where lh.active
        and (lh.node_id = r.id or lh.node_id = any(r.ancestor_ids) or n.ancestor_ids @> array[r.id])
      order by lh.id limit 1
    ) h on true
    join ${driveNodes} hn on hn.id = h.node_id
    where r.id = any(${intArray(nodeIds)}) and r.tenant_id = ${platformKey(scope.tenantId)}
    order by r.id`);
  return (result as unknown as { rows: { nodeId: number; holdNodeId: number; holdNodeName: string }[] }).rows;
}

const holdNode = alias(driveNodes, 'hold_node');

/** Holds of the tenant with their node's name and state, newest first. */
export async function holdPage(
  db: Db,
  scope: TenantScope,
  filter: { spaceId?: number; active?: boolean },
  req: PageRequest,
) {
  const conds: SQL[] = [tenantFilter(driveLegalHolds, scope)];
  if (filter.spaceId !== undefined) conds.push(eq(driveLegalHolds.spaceId, filter.spaceId));
  if (filter.active !== undefined) conds.push(eq(driveLegalHolds.active, filter.active));
  const where = and(...conds);
  const [list, totals] = await Promise.all([
    db
      .select({ hold: driveLegalHolds, nodeName: holdNode.name, nodeDeletedAt: holdNode.deletedAt })
      .from(driveLegalHolds)
      .innerJoin(holdNode, eq(holdNode.id, driveLegalHolds.nodeId))
      .where(where)
      .orderBy(desc(driveLegalHolds.placedAt), desc(driveLegalHolds.id))
      .limit(req.pageSize)
      .offset((req.page - 1) * req.pageSize),
    db.select({ n: sql<number>`count(*)::int` }).from(driveLegalHolds).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: req.page, pageSize: req.pageSize };
}
