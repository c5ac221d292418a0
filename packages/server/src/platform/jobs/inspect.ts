import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { JobRecord, JobState, QueueStat } from './types.ts';

/** Read-only queries on pg-boss's tables (schema `pgboss`), for metrics and inspection. */
export const JOBS_SCHEMA = 'pgboss';

type Row = Record<string, unknown>;
const rowsOf = (r: unknown) => (r as { rows: Row[] }).rows;

/** Jobs per queue: waiting (created or retry), active, failed (kept until pg-boss deletes them). */
export async function queueStats(db: Db): Promise<QueueStat[]> {
  const result = await db.execute(sql`
    SELECT q.name,
      count(j.id) FILTER (WHERE j.state < 'active')::int AS queued,
      count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
      count(j.id) FILTER (WHERE j.state = 'failed')::int AS failed
    FROM pgboss.queue q LEFT JOIN pgboss.job j ON j.name = q.name
    WHERE q.name NOT LIKE '\_\_pgboss%'
    GROUP BY q.name ORDER BY q.name`);
  return rowsOf(result).map((r) => ({
    queue: String(r.name),
    queued: Number(r.queued),
    active: Number(r.active),
    failed: Number(r.failed),
  }));
}

const toRecord = (r: Row): JobRecord => ({
  id: String(r.id),
  queue: String(r.name),
  state: r.state as JobState,
  data: r.data ?? null,
  retryCount: Number(r.retry_count),
  output: r.output ?? null,
  createdOn: new Date(Number(r.created_ms)),
  completedOn: r.completed_ms === null ? null : new Date(Number(r.completed_ms)),
});

// Times as epoch milliseconds: the two drivers format timestamps differently.
const COLUMNS = sql.raw(`id, name, state, data, retry_count, output,
  (extract(epoch FROM created_on) * 1000)::float8 AS created_ms,
  (extract(epoch FROM completed_on) * 1000)::float8 AS completed_ms`);

export async function findJob(db: Db, queue: string, id: string): Promise<JobRecord | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const result = await db.execute(
    sql`SELECT ${COLUMNS} FROM pgboss.job WHERE name = ${queue} AND id = ${id}::uuid LIMIT 1`,
  );
  const [row] = rowsOf(result);
  return row ? toRecord(row) : null;
}

export async function listJobs(db: Db, queue: string, limit: number): Promise<JobRecord[]> {
  const result = await db.execute(
    sql`SELECT ${COLUMNS} FROM pgboss.job WHERE name = ${queue} ORDER BY created_on DESC, id LIMIT ${limit}`,
  );
  return rowsOf(result).map(toRecord);
}
