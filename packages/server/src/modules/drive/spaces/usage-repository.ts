import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { driveFileVersions, driveNodes, driveSpaces } from '../tables.ts';

/** Bytes of a space by where they sit: current versions of live files, of files in the recycle bin, and older versions. */
export async function usageBreakdown(db: Db, spaceId: number) {
  const [row] = await db
    .select({
      liveBytes: sql<string>`coalesce(sum(${driveFileVersions.size}) filter (where ${driveNodes.deletedAt} is null and ${driveFileVersions.id} = ${driveNodes.currentVersionId}), 0)`,
      trashBytes: sql<string>`coalesce(sum(${driveFileVersions.size}) filter (where ${driveNodes.deletedAt} is not null and ${driveFileVersions.id} = ${driveNodes.currentVersionId}), 0)`,
      versionBytes: sql<string>`coalesce(sum(${driveFileVersions.size}) filter (where ${driveFileVersions.id} <> ${driveNodes.currentVersionId}), 0)`,
    })
    .from(driveFileVersions)
    .innerJoin(driveNodes, eq(driveNodes.id, driveFileVersions.nodeId))
    .where(eq(driveNodes.spaceId, spaceId));
  return {
    liveBytes: Number(row?.liveBytes ?? 0),
    trashBytes: Number(row?.trashBytes ?? 0),
    versionBytes: Number(row?.versionBytes ?? 0),
  };
}

/** true when this call set the warning flag (it was clear). */
export async function claimWarning(db: Db, spaceId: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(driveSpaces)
    .set({ quotaWarnedAt: now })
    .where(and(eq(driveSpaces.id, spaceId), isNull(driveSpaces.quotaWarnedAt)))
    .returning({ id: driveSpaces.id });
  return rows.length > 0;
}

export async function setWarned(db: Db, spaceId: number, at: Date | null) {
  await db.update(driveSpaces).set({ quotaWarnedAt: at }).where(eq(driveSpaces.id, spaceId));
}
