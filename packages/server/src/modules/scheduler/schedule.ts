import type { AppContext } from '../../platform/context.ts';
import type { Job } from '../../platform/jobs/define.ts';
import type { CronPayload } from './jobs.ts';
import * as repo from './repository.ts';

/**
 * Every cron job is one pg-boss schedule of the queue `scheduler.cron` (jobs.ts), keyed by the job id:
 * pg-boss fires it once per tick across all instances. The cron_jobs row is the truth; these
 * functions bring the schedule in line with it (after each change, at start, and whenever a
 * fired tick finds the two apart).
 */
export type ScheduleSync = ReturnType<typeof createScheduleSync>;

export function createScheduleSync(ctx: AppContext, cron: Job<CronPayload>) {
  async function apply(row: repo.CronJobRow) {
    const key = String(row.id);
    if (!row.enabled) return cron.unschedule(key);
    const payload: CronPayload = { cronJobId: row.id, cron: row.cron, timezone: row.timezone };
    await cron.schedule(row.cron, payload, { key, timezone: row.timezone });
  }

  return {
    apply,
    remove: (id: number) => cron.unschedule(String(id)),

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
      for (const s of await cron.schedules()) {
        if (!ids.has(s.key)) await cron.unschedule(s.key);
      }
    },
  };
}
