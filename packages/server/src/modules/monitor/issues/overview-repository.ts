import { and, count, desc, eq, gte, lt, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { ERROR_TYPES, errorEvents, errorGroups } from '../tables.ts';
import { trend, trendWindow } from './event-repository.ts';
import { distinctIdentities, groups } from './group-repository.ts';

type TenantScope = Pick<Scope, 'tenantId'>;

/** The overview tab (spec §4.6): totals over the scope's issues, the 14-day trend, top issues. */
export async function overview(db: Db, scope: TenantScope, now: Date) {
  const { start, today, end } = trendWindow(now);
  const events = sql<number>`coalesce(sum(${errorGroups.eventCount}), 0)`.mapWith(Number);
  const byType = await db
    .select({ type: errorGroups.type, issues: count(), events })
    .from(errorGroups)
    .where(groups.where(scope))
    .groupBy(errorGroups.type);
  const [totals] = await db
    .select({
      events,
      unresolved: sql<number>`count(*) FILTER (WHERE ${errorGroups.status} = 'unresolved')`.mapWith(Number),
      newToday:
        sql<number>`count(*) FILTER (WHERE ${errorGroups.firstSeenAt} >= ${today.toISOString()}::timestamptz)`.mapWith(
          Number,
        ),
    })
    .from(errorGroups)
    .where(groups.where(scope));
  const recent = sql<number>`count(${errorEvents.id})`.mapWith(Number);
  const topIssues = await db
    .select({
      id: errorGroups.id,
      type: errorGroups.type,
      level: errorGroups.level,
      status: errorGroups.status,
      message: errorGroups.message,
      events: recent,
    })
    .from(errorEvents)
    .innerJoin(errorGroups, eq(errorGroups.id, errorEvents.groupId))
    .where(and(tenantFilter(errorEvents, scope), gte(errorEvents.createdAt, start), lt(errorEvents.createdAt, end)))
    .groupBy(errorGroups.id)
    .orderBy(desc(recent), desc(errorGroups.id))
    .limit(10);
  const found = new Map(byType.map((r) => [r.type, r]));
  return {
    kinds: ERROR_TYPES.map((type) => ({
      type,
      issues: found.get(type)?.issues ?? 0,
      events: found.get(type)?.events ?? 0,
    })),
    unresolved: totals?.unresolved ?? 0,
    totalEvents: totals?.events ?? 0,
    affectedUsers: await distinctIdentities(db, scope),
    newToday: totals?.newToday ?? 0,
    trend: await trend(db, tenantFilter(errorEvents, scope), now),
    topIssues,
  };
}
