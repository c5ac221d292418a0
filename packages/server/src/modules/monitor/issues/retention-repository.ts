import { and, eq, inArray, lt, notExists, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { errorEvents, errorGroupIdentities, errorGroups } from '../tables.ts';
import { events } from './event-repository.ts';
import { groups } from './group-repository.ts';

type TenantScope = Pick<Scope, 'tenantId'>;
type Rows<T> = { rows: T[] };

/**
 * Retention (spec §4.6 DELETE /clean): deletes the scope's events older than `cutoff`, then the
 * issues left without any event (with their affected identities). An issue is only removed when
 * its last report also predates the cutoff, so a report arriving meanwhile keeps its issue.
 * Surviving issues get their event_count recounted, so the count matches the events kept.
 * Its statements belong together: the caller runs it in one transaction.
 */
export async function cleanOlderThan(tx: Db, scope: TenantScope, cutoff: Date) {
  const old = events.where(scope, lt(errorEvents.createdAt, cutoff));
  const touched = (await tx.selectDistinct({ id: errorEvents.groupId }).from(errorEvents).where(old)).map((r) => r.id);
  // a CTE counts in the database instead of returning one row per deleted event
  const deleted = (await tx.execute(
    sql`WITH d AS (DELETE FROM ${errorEvents} WHERE ${old} RETURNING 1) SELECT count(*)::int AS n FROM d`,
  )) as unknown as Rows<{ n: number }>;
  const eventCount = Number(deleted.rows[0]?.n ?? 0);

  const orphaned = (
    await tx
      .delete(errorGroups)
      .where(
        groups.where(
          scope,
          and(
            lt(errorGroups.lastSeenAt, cutoff),
            notExists(tx.select({ one: sql`1` }).from(errorEvents).where(eq(errorEvents.groupId, errorGroups.id))),
          ),
        ),
      )
      .returning({ id: errorGroups.id })
  ).map((r) => r.id);
  const identities = orphaned.length
    ? await tx
        .delete(errorGroupIdentities)
        .where(inArray(errorGroupIdentities.groupId, orphaned))
        .returning({ id: errorGroupIdentities.groupId })
    : [];

  const gone = new Set(orphaned);
  const survivors = touched.filter((id) => !gone.has(id));
  if (survivors.length) {
    await tx
      .update(errorGroups)
      .set({
        eventCount: sql`(SELECT count(*) FROM ${errorEvents} WHERE ${errorEvents.groupId} = ${errorGroups.id})`,
      })
      .where(inArray(errorGroups.id, survivors));
  }
  return { events: eventCount, groups: orphaned.length, identities: identities.length };
}
