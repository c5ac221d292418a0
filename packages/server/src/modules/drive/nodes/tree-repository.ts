import { and, eq, gt, isNull, ne, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { driveFileVersions, driveLegalHolds, driveNodePermissions, driveNodes } from '../tables.ts';
import type { NodeRow } from './node-repository.ts';

/** The queries of rename, move and copy: locking, whole subtrees, their bytes and the rows that follow a node. */
type TenantScope = Pick<Scope, 'tenantId'>;

const inSubtreeOf = (rootIds: number[]) =>
  sql`(${driveNodes.id} = any(${intArray(rootIds)}) or ${driveNodes.ancestorIds} && ${intArray(rootIds)})`;

/**
 * The rows, locked for the rest of the transaction, in id order: writers that lock several nodes
 * (a move locks its sources and its target) always take them in the same order.
 */
export async function lockNodes(tx: Db, scope: TenantScope, ids: number[]): Promise<NodeRow[]> {
  if (ids.length === 0) return [];
  return tx
    .select()
    .from(driveNodes)
    .where(and(tenantFilter(driveNodes, scope), sql`${driveNodes.id} = any(${intArray(ids)})`))
    .orderBy(driveNodes.id)
    .for('update');
}

/** The nodes and all their descendants, in any state: id and ancestors (to tell which root each is under). */
export const subtreeOf = (tx: Db, scope: TenantScope, rootIds: number[]) =>
  rootIds.length === 0
    ? Promise.resolve([])
    : tx
        .select({ id: driveNodes.id, ancestorIds: driveNodes.ancestorIds })
        .from(driveNodes)
        .where(and(tenantFilter(driveNodes, scope), inSubtreeOf(rootIds)));

/** A live node among `ids` checked out by someone other than `userId` (a lock not yet expired). */
export async function lockedByOther(tx: Db, ids: number[], userId: number, now: Date) {
  if (ids.length === 0) return null;
  const [row] = await tx
    .select({ id: driveNodes.id, lockUserId: driveNodes.lockUserId, lockExpiresAt: driveNodes.lockExpiresAt })
    .from(driveNodes)
    .where(
      and(
        sql`${driveNodes.id} = any(${intArray(ids)})`,
        isNull(driveNodes.deletedAt),
        ne(driveNodes.lockUserId, userId),
        gt(driveNodes.lockExpiresAt, now),
      ),
    )
    .orderBy(driveNodes.id)
    .limit(1);
  return row ?? null;
}

/** Bytes of every stored version of the nodes: what a space holds for them. */
export async function versionBytes(tx: Db, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const [row] = await tx
    .select({ bytes: sql<string>`coalesce(sum(${driveFileVersions.size}), 0)` })
    .from(driveFileVersions)
    .where(sql`${driveFileVersions.nodeId} = any(${intArray(ids)})`);
  return Number(row?.bytes ?? 0);
}

/** The rows that carry their node's space follow it to another one: grants, versions, legal holds. */
export async function carryToSpace(tx: Db, ids: number[], spaceId: number) {
  if (ids.length === 0) return;
  const of = (col: PgColumn): SQL => sql`${col} = any(${intArray(ids)})`;
  await tx.update(driveNodePermissions).set({ spaceId }).where(of(driveNodePermissions.nodeId));
  await tx.update(driveFileVersions).set({ spaceId }).where(of(driveFileVersions.nodeId));
  await tx.update(driveLegalHolds).set({ spaceId }).where(of(driveLegalHolds.nodeId));
}

/** Renames a node; a live sibling of that name (any case) is a unique violation. */
export async function setName(tx: Db, id: number, name: string, by: number, now: Date): Promise<void> {
  await tx.update(driveNodes).set({ name, updatedBy: by, updatedAt: now }).where(eq(driveNodes.id, id));
}

/**
 * The live descendants of the roots, shallowest first (a parent before its children), with the
 * caller's rank on each (`rank`, SQL from the listing); at most `limit` rows.
 */
export async function liveDescendants(
  db: Db,
  scope: TenantScope,
  rootIds: number[],
  rank: SQL<number>,
  limit: number,
): Promise<(NodeRow & { rank: number })[]> {
  if (rootIds.length === 0) return [];
  const rows = await db
    .select({ node: driveNodes, rank: sql<number>`${rank}`.mapWith(Number) })
    .from(driveNodes)
    .where(
      and(
        tenantFilter(driveNodes, scope),
        sql`${driveNodes.ancestorIds} && ${intArray(rootIds)}`,
        isNull(driveNodes.deletedAt),
      ),
    )
    .orderBy(sql`cardinality(${driveNodes.ancestorIds})`, driveNodes.id)
    .limit(limit);
  return rows.map((r) => ({ ...r.node, rank: r.rank }));
}

/** Every live descendant of the roots, parents first (a share link reaches all of its folder). */
export const everyLiveDescendant = (db: Db, scope: TenantScope, rootIds: number[], limit: number) =>
  liveDescendants(db, scope, rootIds, sql<number>`0`, limit);

/** Versions by id (the current versions of files being copied). */
export const versionsByIds = (db: Db, scope: TenantScope, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(driveFileVersions)
        .where(and(tenantFilter(driveFileVersions, scope), sql`${driveFileVersions.id} = any(${intArray(ids)})`));
