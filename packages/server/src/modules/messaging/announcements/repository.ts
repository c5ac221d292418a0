import { and, desc, eq, gt, isNull, ne, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import type { AudienceTarget } from '../deps.ts';
import { type AnnouncementStatus, announcementReads, announcementRecipients, announcements } from './tables.ts';

/** Admin-side queries of announcements; every one goes through the tenant scope. */
export const announcementRows = scoped(announcements);
export type AnnouncementRow = typeof announcements.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;

export function pageAnnouncements(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; type?: string; status?: AnnouncementStatus },
) {
  const filters: (SQL | undefined)[] = [];
  if (q.keyword) filters.push(contains(announcements.title, q.keyword));
  if (q.type) filters.push(eq(announcements.type, q.type));
  if (q.status) filters.push(eq(announcements.publishStatus, q.status));
  return announcementRows.page(db, scope, q, and(...filters), desc(announcements.id));
}

export async function targetsOf(db: Db, announcementId: number): Promise<AudienceTarget[]> {
  const rows = await db
    .select({ type: announcementRecipients.targetType, id: announcementRecipients.targetId })
    .from(announcementRecipients)
    .where(eq(announcementRecipients.announcementId, announcementId))
    .orderBy(announcementRecipients.id);
  return rows;
}

/** Replaces the targets of an announcement of the scope's tenant; they carry its tenant. */
export async function replaceTargets(db: Db, scope: TenantScope, announcementId: number, targets: AudienceTarget[]) {
  const tenantId = platformKey(scope.tenantId);
  await db
    .delete(announcementRecipients)
    .where(
      and(eq(announcementRecipients.tenantId, tenantId), eq(announcementRecipients.announcementId, announcementId)),
    );
  if (targets.length === 0) return;
  await db
    .insert(announcementRecipients)
    .values(targets.map((t) => ({ tenantId, announcementId, targetType: t.type, targetId: t.id })));
}

/** Changes a draft or withdrawn announcement (conditional update): a published one answers null. */
export async function updateUnpublished(
  db: Db,
  scope: TenantScope,
  id: number,
  values: Partial<typeof announcements.$inferInsert>,
): Promise<AnnouncementRow | null> {
  const rows = await db
    .update(announcements)
    .set(values)
    .where(announcementRows.where(scope, and(eq(announcements.id, id), ne(announcements.publishStatus, 'published'))))
    .returning();
  return rows[0] ?? null;
}

/**
 * draft|withdrawn → published by conditional update, unless its expiry has passed: a repeat (or
 * an expired one) changes nothing and answers null.
 */
export async function markPublished(
  db: Db,
  scope: TenantScope,
  id: number,
  now: Date,
): Promise<AnnouncementRow | null> {
  const rows = await db
    .update(announcements)
    .set({ publishStatus: 'published', publishTime: now, updatedAt: now })
    .where(
      announcementRows.where(
        scope,
        and(
          eq(announcements.id, id),
          ne(announcements.publishStatus, 'published'),
          or(isNull(announcements.expireTime), gt(announcements.expireTime, now)),
        ),
      ),
    )
    .returning();
  return rows[0] ?? null;
}

/** published → withdrawn by conditional update: anything else changes nothing and answers null. */
export async function markWithdrawn(
  db: Db,
  scope: TenantScope,
  id: number,
  now: Date,
): Promise<AnnouncementRow | null> {
  const rows = await db
    .update(announcements)
    .set({ publishStatus: 'withdrawn', updatedAt: now })
    .where(announcementRows.where(scope, and(eq(announcements.id, id), eq(announcements.publishStatus, 'published'))))
    .returning();
  return rows[0] ?? null;
}

/** Everyone who read the announcement, latest first. */
export function readsOf(db: Db, announcementId: number) {
  return db
    .select({ userId: announcementReads.userId, readAt: announcementReads.readAt })
    .from(announcementReads)
    .where(eq(announcementReads.announcementId, announcementId))
    .orderBy(desc(announcementReads.readAt), announcementReads.userId);
}
