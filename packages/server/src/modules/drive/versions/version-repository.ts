import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import { driveFileVersions, driveNodes } from '../tables.ts';

/** Queries of file versions. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type VersionRow = typeof driveFileVersions.$inferSelect;

export const versionRows = scoped(driveFileVersions);

export const insertVersion = (
  tx: Db,
  scope: TenantScope,
  row: Omit<typeof driveFileVersions.$inferInsert, 'id' | 'tenantId'>,
) => versionRows.insert(tx, scope, row);

export const nodeVersions = (db: Db, scope: TenantScope, nodeId: number) =>
  versionRows.findMany(db, scope, eq(driveFileVersions.nodeId, nodeId), desc(driveFileVersions.versionNo));

export async function findVersion(db: Db, scope: TenantScope, nodeId: number, id: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(driveFileVersions)
    .where(versionRows.where(scope, and(eq(driveFileVersions.id, id), eq(driveFileVersions.nodeId, nodeId))));
  return row ?? null;
}

/** Every version of the given nodes (a purge). */
export const versionsOfNodes = (db: Db, scope: TenantScope, nodeIds: number[]) =>
  nodeIds.length
    ? versionRows.findMany(db, scope, sql`${driveFileVersions.nodeId} = any(${intArray(nodeIds)})`)
    : Promise.resolve([]);

/** The versions the cap removes: unpinned, not current, oldest first, beyond the `keep` newest. */
export async function versionsBeyondCap(tx: Db, nodeId: number, currentVersionId: number, keep: number) {
  const all = await tx
    .select()
    .from(driveFileVersions)
    .where(eq(driveFileVersions.nodeId, nodeId))
    .orderBy(asc(driveFileVersions.versionNo));
  const excess = all.length - keep;
  if (excess <= 0) return [];
  return all.filter((v) => !v.pinned && v.id !== currentVersionId).slice(0, excess);
}

export async function deleteVersions(tx: Db, ids: number[]) {
  if (ids.length) await tx.delete(driveFileVersions).where(sql`${driveFileVersions.id} = any(${intArray(ids)})`);
}

export async function setPinned(db: Db, id: number, pinned: boolean) {
  const [row] = await db.update(driveFileVersions).set({ pinned }).where(eq(driveFileVersions.id, id)).returning();
  return row ?? null;
}

/** Makes a version the node's current one (size, type and hash follow it). */
export async function setCurrent(tx: Db, node: { id: number }, v: VersionRow, by: number | null, now: Date) {
  const [row] = await tx
    .update(driveNodes)
    .set({
      currentVersionId: v.id,
      versionNo: v.versionNo,
      size: v.size,
      mime: v.mime,
      sha256: v.sha256,
      updatedBy: by,
      updatedAt: now,
    })
    .where(eq(driveNodes.id, node.id))
    .returning();
  return row;
}

/** The next version number of a node (the node row is locked by the caller). */
export async function nextVersionNo(tx: Db, nodeId: number): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`coalesce(max(${driveFileVersions.versionNo}), 0)::int + 1` })
    .from(driveFileVersions)
    .where(eq(driveFileVersions.nodeId, nodeId));
  return row?.n ?? 1;
}

/**
 * Versions (current or older) of live nodes of the tenant holding this content: the candidates
 * of an instant upload, newest first, at most `limit` (the caller checks its role on each node).
 */
export async function liveVersionsWithHash(
  db: Db,
  scope: TenantScope,
  sha256: string,
  size: number,
  limit: number,
): Promise<{ version: VersionRow; node: NodeRow }[]> {
  return db
    .select({ version: driveFileVersions, node: driveNodes })
    .from(driveFileVersions)
    .innerJoin(driveNodes, eq(driveNodes.id, driveFileVersions.nodeId))
    .where(
      versionRows.where(
        scope,
        and(eq(driveFileVersions.sha256, sha256), eq(driveFileVersions.size, size), isNull(driveNodes.deletedAt)),
      ),
    )
    .orderBy(desc(driveFileVersions.id))
    .limit(limit);
}

/** The first version made of a managed file (what a completed chunked upload became). */
export async function firstVersionOfFile(db: Db, scope: TenantScope, fileId: number): Promise<VersionRow | null> {
  const [row] = await db
    .select()
    .from(driveFileVersions)
    .where(versionRows.where(scope, eq(driveFileVersions.fileId, fileId)))
    .orderBy(asc(driveFileVersions.id))
    .limit(1);
  return row ?? null;
}
