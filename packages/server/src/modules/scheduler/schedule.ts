import type { AppContext } from '../../platform/context.ts';
import * as repo from './repository.ts';

/**
 * Every cron job is one pg-boss schedule on the queue `scheduler.cron`, keyed by the job id:
 * pg-boss fires it once per tick across all instances. The cron_jobs row is the truth; these
 * functions bring the schedule in line with it (after each change, at start, and whenever a
 * fired tick finds the two apart).
 */
export const CRON_QUEUE = 'scheduler.cron';

/** What a fired schedule carries; `runId` marks a manual run (the row exists already). */
export type CronPayload = { cronJobId: number; cron?: string; timezone?: string; runId?: number };

export type ScheduleSync = ReturnType<typeof createScheduleSync>;

export function createScheduleSync(ctx: AppContext) {
  async function apply(row: repo.CronJobRow) {
    const key = String(row.id);
    if (!row.enabled) return ctx.jobs.unschedule(CRON_QUEUE, key);
    const payload: CronPayload = { cronJobId: row.id, cron: row.cron, timezone: row.timezone };
    await ctx.jobs.schedule(CRON_QUEUE, row.cron, payload, { key, timezone: row.timezone });
  }

  return {
    apply,
    remove: (id: number) => ctx.jobs.unschedule(CRON_QUEUE, String(id)),

    /** At start: built-in jobs of the system tasks, then one schedule per enabled job, no others. */
    async all() {
      for (const task of ctx.jobs.systemTasks()) {
        if (!task.schedule) continue;
        await repo.insertBuiltinIfMissing(ctx.db, {
          name: task.name,
          handler: task.name,
          cron: task.schedule,
          timezone: task.timezone ?? 'UTC',
          remark: task.description ?? '',
        });
      }
      const rows = await repo.allJobs(ctx.db);
      for (const row of rows) await apply(row);
      const ids = new Set(rows.map((r) => String(r.id)));
      for (const s of await ctx.jobs.schedules(CRON_QUEUE)) {
        if (!ids.has(s.key)) await ctx.jobs.unschedule(CRON_QUEUE, s.key);
      }
    },
  };
}
