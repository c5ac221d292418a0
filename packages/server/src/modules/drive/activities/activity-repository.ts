import { and, desc, eq, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { driveActivities, driveNodes } from '../tables.ts';

/** The drive's activity log (partitioned by UTC month) and its partitions. */
export type ActivityRow = typeof driveActivities.$inferSelect;
export type NewActivity = Omit<typeof driveActivities.$inferInsert, 'id' | 'createdAt'> & { createdAt: Date };

export async function insertActivities(tx: Db, rows: NewActivity[]) {
  if (rows.length)
    await tx.insert(driveActivities).values(rows.map((r) => ({ ...r, tenantId: platformKey(r.tenantId) })));
}

/** the activity `before` names, as a subquery of its own (written `drive_activities as "cursor"`) */
const cursor = alias(driveActivities, 'cursor');

/**
 * A node's activities, newest first; `before` (an id) pages back from that activity (by time,
 * then id, so a page never repeats or skips a row whatever order ids were taken in).
 * `subtree` adds the activities of the nodes below it that pass that filter on `drive_nodes`
 * (the caller's visible nodes): a folder's history with what happened inside it.
 */
export async function nodeActivities(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  nodeId: number,
  opts: { limit: number; before?: number; subtree?: SQL },
) {
  const target = opts.subtree
    ? sql`${driveActivities.nodeId} in (select ${driveNodes.id} from ${driveNodes} where ${or(
        eq(driveNodes.id, nodeId),
        and(sql`${driveNodes.ancestorIds} @> ${sql`${`{${nodeId}}`}::int[]`}`, opts.subtree),
      )})`
    : eq(driveActivities.nodeId, nodeId);
  const page = opts.before
    ? sql`(${driveActivities.createdAt}, ${driveActivities.id}) < (select ${cursor.createdAt}, ${cursor.id} from ${driveActivities} as "cursor"
        where ${and(eq(cursor.id, opts.before), tenantFilter(cursor, scope))})`
    : undefined;
  return db
    .select()
    .from(driveActivities)
    .where(and(tenantFilter(driveActivities, scope), target, page))
    .orderBy(desc(driveActivities.createdAt), desc(driveActivities.id))
    .limit(opts.limit);
}

/** The drive's tables partitioned by UTC month (spec §8), each with a `<table>_default` partition. */
export type MonthlyTable = 'drive_activities' | 'drive_share_access_logs';

/** The partition of `table` for the UTC month holding `month`: its name and range. */
export function monthPartition(month: Date, table: MonthlyTable = 'drive_activities') {
  const from = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth(), 1));
  const to = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
  const name = `${table}_${from.getUTCFullYear()}${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
  return { table, name, from, to };
}

export type MonthPartition = ReturnType<typeof monthPartition>;

export async function partitionExists(
  db: Db,
  name: string,
  table: MonthlyTable = 'drive_activities',
): Promise<boolean> {
  const r = await db.execute(sql`select 1 from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${table}::regclass and c.relname = ${name}`);
  return (r as unknown as { rows: unknown[] }).rows.length > 0;
}

/**
 * Creates a month's partition inside the caller's transaction. Rows that fell into the default
 * partition meanwhile (the task did not run) move into it: a plain `PARTITION OF` would fail on
 * them, and the month would stay in the default partition for good.
 */
export async function createMonthPartition(tx: Db, p: MonthPartition): Promise<void> {
  const { table } = p;
  // no row of the month can enter the default partition while it is emptied and checked
  await tx.execute(sql.raw(`lock table ${table}_default in access exclusive mode`));
  if (await partitionExists(tx, p.name, table)) return;
  const [from, to] = [p.from.toISOString(), p.to.toISOString()];
  await tx.execute(sql.raw(`create table ${p.name} (like ${table} including defaults including constraints)`));
  await tx.execute(
    sql.raw(`with moved as (delete from ${table}_default where created_at >= '${from}' and created_at < '${to}' returning *)
      insert into ${p.name} select * from moved`),
  );
  await tx.execute(sql.raw(`alter table ${table} attach partition ${p.name} for values from ('${from}') to ('${to}')`));
}
