import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type Page, type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { driveNodes, driveShareLinks } from '../tables.ts';

/** Share links (drive_share_links) as their creators and space managers manage them. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type LinkRow = typeof driveShareLinks.$inferSelect;
export type NewLink = Omit<typeof driveShareLinks.$inferInsert, 'id' | 'tenantId'>;
export type LinkPatch = Partial<
  Pick<
    LinkRow,
    | 'title'
    | 'passwordHash'
    | 'expiresAt'
    | 'maxAccessCount'
    | 'maxDownloadCount'
    | 'allowedIps'
    | 'capabilities'
    | 'watermark'
    | 'collectPolicy'
    | 'tokenEncrypted'
    | 'remindedAt'
  >
>;
/** A link with the name of its node, as listings show it. */
export type LinkWithNode = { link: LinkRow; nodeName: string };

const linkRows = scoped(driveShareLinks);
const newestFirst = [desc(driveShareLinks.createdAt), desc(driveShareLinks.id)];

export const insertLink = (tx: Db, scope: TenantScope, row: NewLink) => linkRows.insert(tx, scope, row);

export const findLink = (db: Db, scope: TenantScope, id: number) => linkRows.findById(db, scope, id);

/** Changes a link; `bumpSession` ends the access sessions opened before (password change, revoke). */
export async function updateLink(
  tx: Db,
  scope: TenantScope,
  id: number,
  patch: LinkPatch & { status?: 'revoked'; revokedAt?: Date; revokedBy?: number },
  opts: { now: Date; bumpSession?: boolean },
): Promise<LinkRow | null> {
  const [row] = await tx
    .update(driveShareLinks)
    .set({
      ...patch,
      updatedAt: opts.now,
      // incremented by PostgreSQL, so two concurrent bumps both count
      ...(opts.bumpSession ? { sessionVersion: sql`${driveShareLinks.sessionVersion} + 1` } : {}),
    })
    .where(linkRows.where(scope, eq(driveShareLinks.id, id)))
    .returning();
  return row ?? null;
}

/** Links of both kinds with their node's name, newest first, filtered by creator or by space. */
export async function pageOfLinks(
  db: Db,
  scope: TenantScope,
  by: { createdBy: number } | { spaceId: number },
  page: PageRequest,
): Promise<Page<LinkWithNode>> {
  const where = linkRows.where(
    scope,
    'createdBy' in by ? eq(driveShareLinks.createdBy, by.createdBy) : eq(driveShareLinks.spaceId, by.spaceId),
  );
  const [list, totals] = await Promise.all([
    db
      .select({ link: driveShareLinks, nodeName: driveNodes.name })
      .from(driveShareLinks)
      .innerJoin(driveNodes, eq(driveNodes.id, driveShareLinks.nodeId))
      .where(where)
      .orderBy(...newestFirst)
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(driveShareLinks).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: page.page, pageSize: page.pageSize };
}

/** Gives the link a short code unless it has one (null then: another request gave it first). */
export async function setShortCode(tx: Db, scope: TenantScope, id: number, code: string, now: Date) {
  const [row] = await tx
    .update(driveShareLinks)
    .set({ shortCode: code, updatedAt: now })
    .where(linkRows.where(scope, and(eq(driveShareLinks.id, id), isNull(driveShareLinks.shortCode))))
    .returning();
  return row ?? null;
}

/** Removes the link's short code (its short URL stops resolving). */
export async function clearShortCode(tx: Db, scope: TenantScope, id: number, now: Date) {
  const [row] = await tx
    .update(driveShareLinks)
    .set({ shortCode: null, updatedAt: now })
    .where(linkRows.where(scope, eq(driveShareLinks.id, id)))
    .returning();
  return row ?? null;
}
