import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { driveActivities } from '../tables.ts';

/** The drive's activity log (partitioned by UTC month) and its partitions. */
export type ActivityRow = typeof driveActivities.$inferSelect;
export type NewActivity = Omit<typeof driveActivities.$inferInsert, 'id' | 'createdAt'> & { createdAt: Date };

export async function insertActivities(tx: Db, rows: NewActivity[]) {
  if (rows.length) await tx.insert(driveActivities).values(rows);
}

/** A node's activities, newest first; `before` (an id) pages back. */
export async function nodeActivities(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  nodeId: number,
  opts: { limit: number; before?: number },
) {
  return db
    .select()
    .from(driveActivities)
    .where(
      and(
        tenantFilter(driveActivities, scope),
        eq(driveActivities.nodeId, nodeId),
        opts.before ? lt(driveActivities.id, opts.before) : undefined,
      ),
    )
    .orderBy(desc(driveActivities.createdAt), desc(driveActivities.id))
    .limit(opts.limit);
}

/** Creates the monthly partition holding `month` (its first day, UTC) unless it exists. */
export async function ensureMonthPartition(db: Db, month: Date): Promise<string> {
  const from = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1));
  const to = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
  const name = `drive_activities_${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
  await db.execute(
    sql.raw(
      `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF drive_activities FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
    ),
  );
  return name;
}
