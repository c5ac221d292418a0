import { and, desc, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { notices } from './tables.ts';

/** Queries of notices; every one goes through the tenant scope. */
export const noticeRows = scoped(notices);
export type NoticeRow = typeof notices.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;
type NoticeType = NoticeRow['type'];

export function pageNotices(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; type?: NoticeType; status?: NoticeRow['status'] },
) {
  const filters: (SQL | undefined)[] = [];
  if (q.keyword) filters.push(contains(notices.title, q.keyword));
  if (q.type) filters.push(eq(notices.type, q.type));
  if (q.status) filters.push(eq(notices.status, q.status));
  return noticeRows.page(db, scope, q, and(...filters), desc(notices.id));
}

const publishedColumns = {
  id: notices.id,
  title: notices.title,
  content: notices.content,
  type: notices.type,
  publishedAt: notices.publishedAt,
};

/** Published notices, newest first, as users see them. */
export async function pagePublished(db: Db, scope: TenantScope, q: PageRequest & { type?: NoticeType }) {
  const page = await noticeRows.page(
    db,
    scope,
    q,
    and(eq(notices.status, 'published'), q.type ? eq(notices.type, q.type) : undefined),
    sql`${notices.publishedAt} desc, ${notices.id} desc`,
  );
  return { ...page, list: page.list.map(toPublishedNoticeView) };
}

export async function findPublished(db: Db, scope: TenantScope, id: number) {
  const rows = await db
    .select(publishedColumns)
    .from(notices)
    .where(noticeRows.where(scope, and(eq(notices.id, id), eq(notices.status, 'published'))));
  return rows[0] ? toPublishedNoticeView(rows[0]) : null;
}

function toPublishedNoticeView(r: Pick<NoticeRow, 'id' | 'title' | 'content' | 'type' | 'publishedAt'>) {
  // A published row always has publishedAt (markPublished sets both); the fallback only satisfies the type.
  return { id: r.id, title: r.title, content: r.content, type: r.type, publishedAt: r.publishedAt ?? new Date(0) };
}

/** draft|withdrawn → published by conditional update: a repeat changes nothing and returns null. */
export async function markPublished(db: Db, scope: TenantScope, id: number, now: Date): Promise<NoticeRow | null> {
  const rows = await db
    .update(notices)
    .set({ status: 'published', publishedAt: now, updatedAt: now })
    .where(noticeRows.where(scope, and(eq(notices.id, id), ne(notices.status, 'published'))))
    .returning();
  return rows[0] ?? null;
}

/** published → withdrawn by conditional update: anything else changes nothing and returns null. */
export async function markWithdrawn(db: Db, scope: TenantScope, id: number, now: Date): Promise<NoticeRow | null> {
  const rows = await db
    .update(notices)
    .set({ status: 'withdrawn', updatedAt: now })
    .where(noticeRows.where(scope, and(eq(notices.id, id), eq(notices.status, 'published'))))
    .returning();
  return rows[0] ?? null;
}
