import { and, desc, eq, gte, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { type ErrorType, errorEvents } from '../tables.ts';
import type { ErrorEventRow } from './deps.ts';

/** Queries of error events; every one goes through the tenant scope. */
export const events = scoped(errorEvents);
type TenantScope = Pick<Scope, 'tenantId'>;
export type ErrorEventQuery = PageRequest & {
  groupId?: number;
  type?: ErrorType;
  /** inclusive */
  from?: string;
  /** exclusive */
  to?: string;
};

const newestFirst = sql`${errorEvents.createdAt} DESC, ${errorEvents.id} DESC`;

export function pageEvents(db: Db, scope: TenantScope, q: ErrorEventQuery) {
  const conds: SQL[] = [];
  if (q.groupId) conds.push(eq(errorEvents.groupId, q.groupId));
  if (q.type) conds.push(eq(errorEvents.type, q.type));
  if (q.from) conds.push(gte(errorEvents.createdAt, new Date(q.from)));
  if (q.to) conds.push(lt(errorEvents.createdAt, new Date(q.to)));
  return events.page(db, scope, q, conds.length ? and(...conds) : undefined, newestFirst);
}

export const byGroup = (groupId: number) => eq(errorEvents.groupId, groupId);

export function recentEvents(db: Db, groupId: number, limit: number): Promise<ErrorEventRow[]> {
  return db.select().from(errorEvents).where(eq(errorEvents.groupId, groupId)).orderBy(newestFirst).limit(limit);
}

export async function latestReplayId(db: Db, groupId: number): Promise<string | null> {
  const [row] = await db
    .select({ replayId: errorEvents.replayId })
    .from(errorEvents)
    .where(and(eq(errorEvents.groupId, groupId), isNotNull(errorEvents.replayId)))
    .orderBy(newestFirst)
    .limit(1);
  return row?.replayId ?? null;
}

const DAY_MS = 86_400_000;
export const TREND_DAYS = 14;

/** The UTC day `now` falls in, and the first day of the 14-day window that ends with it. */
export function trendWindow(now: Date) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { start: new Date(today - (TREND_DAYS - 1) * DAY_MS), today: new Date(today), end: new Date(today + DAY_MS) };
}

/** Events per UTC day over the 14 days that end today, oldest first, days without events as 0. */
export async function trend(db: Db, filter: SQL | undefined, now: Date): Promise<{ date: string; count: number }[]> {
  const { start, end } = trendWindow(now);
  const day = sql<string>`to_char(${errorEvents.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
  const rows = await db
    .select({ day, n: sql<number>`count(*)`.mapWith(Number) })
    .from(errorEvents)
    .where(and(filter, gte(errorEvents.createdAt, start), lt(errorEvents.createdAt, end)))
    .groupBy(sql`1`);
  const byDay = new Map(rows.map((r) => [r.day, r.n]));
  return Array.from({ length: TREND_DAYS }, (_, i) => {
    const date = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    return { date, count: byDay.get(date) ?? 0 };
  });
}

/** Top values of a user-agent field over one issue's retained events (empty = `unknown`). */
export function distribution(db: Db, groupId: number, field: 'browser' | 'os') {
  const name = sql<string>`coalesce(nullif(${errorEvents[field]}, ''), 'unknown')`;
  const n = sql<number>`count(*)`.mapWith(Number);
  return db
    .select({ name, count: n })
    .from(errorEvents)
    .where(eq(errorEvents.groupId, groupId))
    .groupBy(sql`1`)
    .orderBy(desc(n), name)
    .limit(10);
}

export function toEventView(row: ErrorEventRow) {
  const { tenantId: _tenant, ...rest } = row;
  return rest;
}

export function toEventSummaryView(row: ErrorEventRow) {
  const { tenantId: _t, stack: _s, breadcrumbs: _b, context: _c, userAgent: _u, ...rest } = row;
  return rest;
}
