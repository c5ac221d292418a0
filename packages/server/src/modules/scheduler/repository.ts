import { and, asc, count, desc, eq, inArray, lt, ne, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type Page, type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { PLATFORM_TENANT_ID, platformKey } from '../../platform/db/tenant-key.ts';
import { cronJobRuns, cronJobs } from './tables.ts';

/** Queries of cron jobs (through the tenant scope) and of their run log (reached through a job). */
export const jobsTable = scoped(cronJobs);
export type CronJobRow = typeof cronJobs.$inferSelect;
export type CronJobRunRow = typeof cronJobRuns.$inferSelect;
type RunStatus = CronJobRunRow['status'];
/** The runner works at platform scope: cron jobs are platform-level rows. */
const PLATFORM = { tenantId: null };

export function pageJobs(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  q: PageRequest & { keyword?: string; enabled?: boolean },
) {
  const filters: SQL[] = [];
  if (q.keyword) filters.push(or(contains(cronJobs.name, q.keyword), contains(cronJobs.handler, q.keyword)) as SQL);
  if (q.enabled !== undefined) filters.push(eq(cronJobs.enabled, q.enabled));
  return jobsTable.page(db, scope, q, filters.length ? and(...filters) : undefined, asc(cronJobs.id));
}

export const findJob = (db: Db, id: number) => jobsTable.findById(db, PLATFORM, id);
export const allJobs = (db: Db) => jobsTable.findMany(db, PLATFORM);

/** The built-in job of a system task, unless it exists (several instances may start at once). */
export async function insertBuiltinIfMissing(
  db: Db,
  values: { name: string; handler: string; cron: string; timezone: string; remark: string },
) {
  await db
    .insert(cronJobs)
    .values({ ...values, tenantId: PLATFORM_TENANT_ID, builtin: true })
    .onConflictDoNothing();
}

/** A run of the job; it carries the job's tenant. */
export async function insertRun(
  db: Db,
  job: Pick<CronJobRow, 'id' | 'tenantId' | 'handler'>,
  values: Omit<typeof cronJobRuns.$inferInsert, 'tenantId' | 'jobId' | 'handler'>,
): Promise<CronJobRunRow | null> {
  // A second run of the same scheduled tick hits the partial unique index and is not written.
  const [row] = await db
    .insert(cronJobRuns)
    .values({ ...values, tenantId: platformKey(job.tenantId), jobId: job.id, handler: job.handler })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function findRun(db: Db, id: number): Promise<CronJobRunRow | null> {
  const [row] = await db.select().from(cronJobRuns).where(eq(cronJobRuns.id, id)).limit(1);
  return row ?? null;
}

export async function restartRun(db: Db, id: number, startedAt: Date) {
  await db.update(cronJobRuns).set({ startedAt }).where(eq(cronJobRuns.id, id));
}

export async function finishRun(
  db: Db,
  run: { id: number; jobId: number; startedAt: Date },
  values: { status: RunStatus; finishedAt: Date; durationMs: number; result: unknown; error: string | null },
) {
  await db.update(cronJobRuns).set(values).where(eq(cronJobRuns.id, run.id));
  await db
    .update(cronJobs)
    .set({ lastRunAt: run.startedAt, lastStatus: values.status })
    .where(eq(cronJobs.id, run.jobId));
}

/** Runs still `running` that started before `before`: their instance stopped or crashed. */
export async function failInterruptedRuns(db: Db, jobId: number, before: Date, now: Date) {
  await db
    .update(cronJobRuns)
    .set({ status: 'failed', finishedAt: now, error: 'interrupted: the instance running it stopped' })
    .where(and(eq(cronJobRuns.jobId, jobId), eq(cronJobRuns.status, 'running'), lt(cronJobRuns.startedAt, before)));
}

export async function pageRuns(
  db: Db,
  jobId: number,
  q: PageRequest & { status?: RunStatus; trigger?: CronJobRunRow['trigger'] },
): Promise<Page<CronJobRunRow>> {
  const filters: SQL[] = [eq(cronJobRuns.jobId, jobId)];
  if (q.status) filters.push(eq(cronJobRuns.status, q.status));
  if (q.trigger) filters.push(eq(cronJobRuns.trigger, q.trigger));
  const where = and(...filters);
  const [list, totals] = await Promise.all([
    db
      .select()
      .from(cronJobRuns)
      .where(where)
      .orderBy(desc(cronJobRuns.startedAt), desc(cronJobRuns.id))
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(cronJobRuns).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/** Deletes finished runs that started before `before`; answers how many went. */
export async function pruneRuns(db: Db, before: Date): Promise<number> {
  const rows = await db
    .delete(cronJobRuns)
    .where(and(lt(cronJobRuns.startedAt, before), inArray(cronJobRuns.status, ['success', 'failed'])))
    .returning({ id: cronJobRuns.id });
  return rows.length;
}

/** Statuses of a job's latest finished runs, newest first. */
export async function latestFinishedStatuses(db: Db, jobId: number, limit: number): Promise<RunStatus[]> {
  const rows = await db
    .select({ status: cronJobRuns.status })
    .from(cronJobRuns)
    .where(and(eq(cronJobRuns.jobId, jobId), ne(cronJobRuns.status, 'running')))
    .orderBy(desc(cronJobRuns.finishedAt), desc(cronJobRuns.id))
    .limit(limit);
  return rows.map((r) => r.status);
}
