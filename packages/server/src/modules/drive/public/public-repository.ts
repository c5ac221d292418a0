import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey, sameTenantKey } from '../../../platform/db/tenant-key.ts';
import { driveNodes, driveShareAccessLogs, driveShareLinks, driveSpaces, type ShareAccessEvent } from '../tables.ts';

export type ShareLinkRow = typeof driveShareLinks.$inferSelect;

/**
 * A link by the hash of its token, with what every anonymous request checks next: whether its
 * space allows external sharing and its node while live (null in the recycle bin or gone). One
 * query, because every anonymous request — each Range of a download too — starts here. Not
 * tenant-scoped on purpose: the token is the only thing an anonymous caller holds; the link's own
 * tenant scopes everything after it.
 */
export async function findLinkByTokenHash(db: Db, tokenHash: string) {
  const sameTenant = (col: typeof driveNodes.tenantId | typeof driveSpaces.tenantId) =>
    eq(col, driveShareLinks.tenantId);
  const rows = await db
    .select({ link: driveShareLinks, spaceSharing: driveSpaces.externalShareEnabled, node: driveNodes })
    .from(driveShareLinks)
    .leftJoin(driveSpaces, and(eq(driveSpaces.id, driveShareLinks.spaceId), sameTenant(driveSpaces.tenantId)))
    .leftJoin(
      driveNodes,
      and(eq(driveNodes.id, driveShareLinks.nodeId), isNull(driveNodes.deletedAt), sameTenant(driveNodes.tenantId)),
    )
    .where(eq(driveShareLinks.tokenHash, tokenHash))
    .limit(1);
  return rows[0] ?? null;
}

/** A link by its short code; not tenant-scoped either (the code stands for the token). */
export async function findLinkByShortCode(db: Db, code: string): Promise<ShareLinkRow | null> {
  const rows = await db.select().from(driveShareLinks).where(eq(driveShareLinks.shortCode, code)).limit(1);
  return rows[0] ?? null;
}

/** Counts one access unless the limit is reached (one statement: concurrent visits cannot pass it). */
export async function countAccess(db: Db, linkId: number): Promise<boolean> {
  const rows = await db
    .update(driveShareLinks)
    .set({ accessCount: sql`${driveShareLinks.accessCount} + 1` })
    .where(
      and(
        eq(driveShareLinks.id, linkId),
        sql`(${driveShareLinks.maxAccessCount} is null or ${driveShareLinks.accessCount} < ${driveShareLinks.maxAccessCount})`,
      ),
    )
    .returning({ id: driveShareLinks.id });
  return rows.length > 0;
}

/** Counts one download unless the limit is reached (same conditional update as accesses). */
export async function countDownload(db: Db, linkId: number): Promise<boolean> {
  const rows = await db
    .update(driveShareLinks)
    .set({ downloadCount: sql`${driveShareLinks.downloadCount} + 1` })
    .where(
      and(
        eq(driveShareLinks.id, linkId),
        sql`(${driveShareLinks.maxDownloadCount} is null or ${driveShareLinks.downloadCount} < ${driveShareLinks.maxDownloadCount})`,
      ),
    )
    .returning({ id: driveShareLinks.id });
  return rows.length > 0;
}

export async function logShareAccess(
  db: Db,
  link: Pick<ShareLinkRow, 'id' | 'tenantId'>,
  entry: {
    nodeId: number | null;
    event: ShareAccessEvent;
    ip: string;
    userAgent: string | null;
    userId?: number | null;
    detail?: object;
  },
) {
  await db.insert(driveShareAccessLogs).values({
    tenantId: platformKey(link.tenantId),
    linkId: link.id,
    nodeId: entry.nodeId,
    event: entry.event,
    userId: entry.userId ?? null,
    ip: entry.ip,
    userAgent: entry.userAgent,
    detail: (entry.detail ?? {}) as Record<string, unknown>,
  });
}

const childColumns = {
  id: driveNodes.id,
  parentId: driveNodes.parentId,
  type: driveNodes.type,
  name: driveNodes.name,
  size: driveNodes.size,
  mime: driveNodes.mime,
  updatedAt: driveNodes.updatedAt,
  // what a preview comes from (a rendition is of the current version)
  currentVersionId: driveNodes.currentVersionId,
};

export type PublicChildRow = { [K in keyof typeof childColumns]: (typeof driveNodes.$inferSelect)[K] };

/** Live children of one folder of the link's tenant: folders first, then by name. */
export async function liveChildren(
  db: Db,
  tenantId: number | null,
  parentId: number,
  page: { page: number; pageSize: number },
): Promise<{ list: PublicChildRow[]; total: number }> {
  const where = and(
    sameTenantKey(driveNodes.tenantId, tenantId),
    eq(driveNodes.parentId, parentId),
    isNull(driveNodes.deletedAt),
  );
  const [list, totals] = await Promise.all([
    db
      .select(childColumns)
      .from(driveNodes)
      .where(where)
      .orderBy(
        sql`case when ${driveNodes.type} = 'folder' then 0 else 1 end`,
        asc(sql`lower(${driveNodes.name})`),
        asc(driveNodes.id),
      )
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(driveNodes).where(where),
  ]);
  return { list, total: totals[0]?.n ?? 0 };
}
