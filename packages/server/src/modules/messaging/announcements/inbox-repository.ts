import { and, count, desc, eq, exists, gt, inArray, isNotNull, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, tenantFilter } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import type { AudienceTarget } from '../deps.ts';
import { announcementReads, announcementRecipients, announcements } from './tables.ts';

/**
 * What one user sees: the published, unexpired announcements of their tenant sent to all or to a
 * target they match (own id, a role, their department or an ancestor of it).
 */
export type Viewer = { tenantId: number | null; userId: number; targets: AudienceTarget[]; now: Date };

function visibleTo(db: Db, v: Viewer): SQL {
  const reach = (['user', 'role', 'dept'] as const).flatMap((type) => {
    const ids = v.targets.filter((t) => t.type === type).map((t) => t.id);
    return ids.length
      ? [and(eq(announcementRecipients.targetType, type), inArray(announcementRecipients.targetId, ids))]
      : [];
  });
  const targeted = reach.length
    ? and(
        eq(announcements.targetType, 'targeted'),
        exists(
          db
            .select({ one: sql`1` })
            .from(announcementRecipients)
            .where(and(eq(announcementRecipients.announcementId, announcements.id), or(...reach))),
        ),
      )
    : undefined;
  return and(
    tenantFilter(announcements, v),
    eq(announcements.publishStatus, 'published'),
    or(isNull(announcements.expireTime), gt(announcements.expireTime, v.now)),
    or(eq(announcements.targetType, 'all'), targeted),
  ) as SQL;
}

const myRead = (v: Viewer) =>
  and(eq(announcementReads.announcementId, announcements.id), eq(announcementReads.userId, v.userId));

const PRIORITY_RANK = sql`case ${announcements.priority} when 'urgent' then 3 when 'high' then 2 when 'normal' then 1 else 0 end`;

/** Orders of the two user lists: the inbox is newest first, the board puts urgent ones on top. */
export const orders = {
  newest: [desc(announcements.publishTime), desc(announcements.id)],
  priority: [desc(PRIORITY_RANK), desc(announcements.publishTime), desc(announcements.id)],
};

export async function pageVisible(
  db: Db,
  v: Viewer,
  q: PageRequest & { isRead?: boolean; type?: string },
  order: SQL[],
) {
  const cond = and(
    visibleTo(db, v),
    q.type ? eq(announcements.type, q.type) : undefined,
    q.isRead === undefined
      ? undefined
      : q.isRead
        ? isNotNull(announcementReads.userId)
        : isNull(announcementReads.userId),
  );
  const [rows, totals] = await Promise.all([
    db
      .select({
        id: announcements.id,
        title: announcements.title,
        content: announcements.content,
        type: announcements.type,
        priority: announcements.priority,
        publishTime: announcements.publishTime,
        expireTime: announcements.expireTime,
        readAt: announcementReads.readAt,
      })
      .from(announcements)
      .leftJoin(announcementReads, myRead(v))
      .where(cond)
      .orderBy(...order)
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(announcements).leftJoin(announcementReads, myRead(v)).where(cond),
  ]);
  // A published row always has publishTime (markPublished sets both); the fallback only satisfies the type.
  const list = rows.map((r) => ({ ...r, publishTime: r.publishTime ?? new Date(0), isRead: r.readAt !== null }));
  return { list, total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

export async function countUnread(db: Db, v: Viewer): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(announcements)
    .leftJoin(announcementReads, myRead(v))
    .where(and(visibleTo(db, v), isNull(announcementReads.userId)));
  return Number(row?.n ?? 0);
}

export async function isVisible(db: Db, v: Viewer, id: number): Promise<boolean> {
  const rows = await db
    .select({ id: announcements.id })
    .from(announcements)
    .where(and(eq(announcements.id, id), visibleTo(db, v)));
  return rows.length > 0;
}

/** Marks one read (an announcement the viewer sees: of their tenant); a repeat keeps the first read time. */
export async function markRead(db: Db, v: Viewer, announcementId: number): Promise<Date> {
  const { userId, now } = v;
  await db
    .insert(announcementReads)
    .values({ tenantId: platformKey(v.tenantId), announcementId, userId, readAt: now })
    .onConflictDoNothing();
  const [row] = await db
    .select({ readAt: announcementReads.readAt })
    .from(announcementReads)
    .where(and(eq(announcementReads.announcementId, announcementId), eq(announcementReads.userId, userId)));
  return row?.readAt ?? now;
}

/** Marks every announcement the viewer sees read in one statement; answers how many were new. */
export async function markAllRead(db: Db, v: Viewer): Promise<number> {
  const rows = await db
    .insert(announcementReads)
    .select(
      db
        .select({
          tenantId: announcements.tenantId,
          announcementId: announcements.id,
          userId: sql<number>`${v.userId}::integer`.as('user_id'),
          readAt: sql<Date>`${v.now.toISOString()}::timestamptz`.as('read_at'),
        })
        .from(announcements)
        .where(visibleTo(db, v)),
    )
    .onConflictDoNothing()
    .returning({ id: announcementReads.announcementId });
  return rows.length;
}
