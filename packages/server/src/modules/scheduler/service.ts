import type { Scope } from '../../platform/auth/principal.ts';
import { assertPlatformScope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { onUniqueViolation, rowOrThrow } from '../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { canonicalTimezone, cronProblem, nextRuns } from '../../platform/jobs/cron.ts';
import type { Job } from '../../platform/jobs/define.ts';
import { schedulerErrors } from './errors.ts';
import type { CronPayload } from './jobs.ts';
import * as repo from './repository.ts';
import type { ScheduleSync } from './schedule.ts';

export type CronJobInput = {
  name: string;
  handler: string;
  cron: string;
  timezone?: string;
  params?: Record<string, unknown>;
  enabled?: boolean;
  remark?: string;
};

/**
 * The cron jobs admin: platform scope only (docs/decisions/0006-jobs.md). Each change is written
 * to the row first, then the job's pg-boss schedule is brought in line; a failed schedule write
 * undoes a create, and any leftover difference heals at the next tick or start.
 */
export function createCronJobsService(ctx: AppContext, sync: ScheduleSync, cron: Job<CronPayload>) {
  const { db, clock } = ctx;

  /** Handler registered, time zone IANA (stored canonical), cron readable: else 400 naming each. */
  function checked<T extends Partial<CronJobInput>>(input: T, current?: repo.CronJobRow): T {
    const details: FieldError[] = [];
    if (input.handler !== undefined && !ctx.jobs.systemTask(input.handler)) {
      details.push({ field: 'handler', message: 'is not a registered handler (GET /api/cron-jobs/handlers)' });
    }
    const timezone = canonicalTimezone(input.timezone ?? current?.timezone ?? 'UTC');
    if (!timezone) details.push({ field: 'timezone', message: 'is not an IANA time zone such as Europe/Berlin' });
    const cron = input.cron ?? current?.cron;
    const problem = cron === undefined ? null : cronProblem(cron, timezone ?? 'UTC');
    if (problem) details.push({ field: 'cron', message: problem });
    if (details.length) throw httpErrors.validation(details);
    return {
      ...input,
      ...(input.cron !== undefined ? { cron: input.cron.trim() } : {}),
      ...(input.timezone !== undefined ? { timezone } : {}),
    };
  }

  async function jobOrThrow(scope: Scope, id: number) {
    assertPlatformScope(scope);
    return rowOrThrow(repo.jobsTable.findById(db, scope, id), schedulerErrors.jobNotFound);
  }

  const write = <T>(fn: () => Promise<T>) => onUniqueViolation(fn, () => schedulerErrors.jobExists());

  async function change(scope: Scope, id: number, patch: Partial<CronJobInput>) {
    const row = await write(() => repo.jobsTable.update(db, scope, id, { ...patch, updatedAt: clock() }));
    if (!row) throw schedulerErrors.jobNotFound();
    await sync.apply(row);
    return toCronJobView(row);
  }

  function toCronJobView(row: repo.CronJobRow) {
    return {
      ...row,
      nextRunAt: row.enabled ? (nextRuns(row.cron, row.timezone, clock(), 1)[0] ?? null) : null,
    };
  }

  return {
    async list(scope: Scope, q: Parameters<typeof repo.pageJobs>[2]) {
      assertPlatformScope(scope);
      const page = await repo.pageJobs(db, scope, q);
      return { ...page, list: page.list.map(toCronJobView) };
    },
    get: async (scope: Scope, id: number) => toCronJobView(await jobOrThrow(scope, id)),

    async create(scope: Scope, input: CronJobInput) {
      assertPlatformScope(scope);
      const values = checked({ timezone: 'UTC', ...input });
      const row = await write(() => repo.jobsTable.insert(db, scope, values));
      try {
        await sync.apply(row);
      } catch (err) {
        await repo.jobsTable.deleteMany(db, scope, [row.id]);
        throw err;
      }
      return toCronJobView(row);
    },

    async update(scope: Scope, id: number, patch: Partial<CronJobInput>) {
      const current = await jobOrThrow(scope, id);
      if (current.builtin) {
        for (const field of ['name', 'handler'] as const) {
          if (patch[field] !== undefined && patch[field] !== current[field]) throw schedulerErrors.builtin(field);
        }
      }
      return change(scope, id, checked(patch, current));
    },

    async setEnabled(scope: Scope, id: number, enabled: boolean) {
      await jobOrThrow(scope, id);
      return change(scope, id, { enabled });
    },

    async remove(scope: Scope, id: number) {
      const current = await jobOrThrow(scope, id);
      // A built-in job comes back at the next start while its task exists: disable it instead.
      if (current.builtin && ctx.jobs.systemTask(current.handler)) throw schedulerErrors.builtin();
      await repo.jobsTable.deleteMany(db, scope, [id]);
      await sync.remove(id);
    },

    handlers(scope: Scope) {
      assertPlatformScope(scope);
      return ctx.jobs.systemTasks().map((t) => ({
        name: t.name,
        description: t.description ?? '',
        schedule: t.schedule ?? null,
        timezone: t.timezone ?? 'UTC',
      }));
    },

    preview(scope: Scope, body: { cron: string; timezone?: string; count?: number }) {
      assertPlatformScope(scope);
      const { cron, timezone } = checked({ cron: body.cron, timezone: body.timezone ?? 'UTC' });
      return { times: nextRuns(cron, timezone, clock(), body.count ?? 5) };
    },

    /** Run now: the run row and its job are written in one transaction (nothing if either fails). */
    async runNow(scope: Scope, id: number) {
      const job = await jobOrThrow(scope, id);
      return db.transaction(async (tx) => {
        const run = await repo.insertRun(tx, job, {
          trigger: 'manual',
          startedAt: clock(),
          triggeredBy: userOf(scope)?.userId ?? null,
        });
        if (!run) throw new Error('run row not written');
        await cron.send({ cronJobId: job.id, runId: run.id }, { tx });
        return run;
      });
    },

    async runs(scope: Scope, id: number, q: Parameters<typeof repo.pageRuns>[2]) {
      await jobOrThrow(scope, id);
      return repo.pageRuns(db, id, q);
    },
  };
}

export type CronJobsService = ReturnType<typeof createCronJobsService>;
