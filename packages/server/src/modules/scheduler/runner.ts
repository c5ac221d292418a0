import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../platform/context.ts';
import { tickAt } from '../../platform/jobs/cron.ts';
import type { JobInfo } from '../../platform/jobs/types.ts';
import { type FailureAlertDeps, notifyRunFailed } from './failure-alerts.ts';
import type { CronPayload } from './jobs.ts';
import * as repo from './repository.ts';
import type { ScheduleSync } from './schedule.ts';

/** An attempt older than this is no longer running anywhere (the queue's expiry, plus a margin). */
export const RUN_EXPIRE_SECONDS = 3600;
const INTERRUPTED_AFTER_MS = (RUN_EXPIRE_SECONDS + 300) * 1000;
const ERROR_MAX = 4000;

/**
 * Executes one fired tick or one "run now": writes the run row (started, then finished with
 * duration, result or error) around the registered handler. A failed run is recorded, not
 * retried: the next tick is the retry.
 */
export function createRunner(ctx: AppContext, sync: ScheduleSync, alerts: FailureAlertDeps) {
  const { db, clock, log } = ctx;

  async function execute(job: repo.CronJobRow, run: repo.CronJobRunRow) {
    await repo.failInterruptedRuns(db, job.id, new Date(run.startedAt.getTime() - INTERRUPTED_AFTER_MS), clock());
    const task = ctx.jobs.systemTask(job.handler);
    const started = performance.now();
    let result: unknown = null;
    let error: string | null = null;
    try {
      if (!task) throw new Error(`handler "${job.handler}" is not registered`);
      const out = await task.handler(job.params, { trigger: run.trigger, cronJobId: job.id, runId: run.id, log });
      result = jsonValue(out);
    } catch (err) {
      error = (err instanceof Error ? err.message : String(err)).slice(0, ERROR_MAX) || 'failed';
      log.warn({ err, cronJobId: job.id, runId: run.id, handler: job.handler }, 'cron job run failed');
    }
    const status = error === null ? 'success' : 'failed';
    await repo.finishRun(db, run, {
      status,
      finishedAt: clock(),
      durationMs: Math.round(performance.now() - started),
      result,
      error,
    });
    if (error !== null) await notifyRunFailed(alerts, job, run.id, error);
    return { runId: run.id, status };
  }

  async function scheduled(payload: CronPayload, info: JobInfo) {
    const job = await repo.findJob(db, payload.cronJobId);
    if (!job) {
      await sync.remove(payload.cronJobId);
      return { skipped: 'deleted' };
    }
    // A schedule left behind by a racing change: align it and let the right one fire.
    if (!job.enabled || job.cron !== payload.cron || job.timezone !== payload.timezone) {
      await sync.apply(job);
      return { skipped: 'stale schedule' };
    }
    const run = await repo.insertRun(db, job, {
      trigger: 'scheduled',
      scheduledAt: tickAt(job.cron, job.timezone, info.createdOn),
      startedAt: clock(),
    });
    if (!run) return { skipped: 'tick already run' };
    return execute(job, run);
  }

  async function manual(payload: CronPayload & { runId: number }) {
    const run = await repo.findRun(db, payload.runId);
    const job = run && (await repo.findJob(db, run.jobId));
    if (!run || !job || run.status !== 'running') return { skipped: 'run gone or finished' };
    const startedAt = clock();
    await repo.restartRun(db, run.id, startedAt);
    return execute(job, { ...run, startedAt });
  }

  return async (payload: CronPayload, info: JobInfo) =>
    payload.runId === undefined ? scheduled(payload, info) : manual({ ...payload, runId: payload.runId });
}

/** The handler's result as stored JSON (a value JSON cannot hold becomes its text). */
function jsonValue(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) ?? null;
  } catch {
    return String(value);
  }
}
