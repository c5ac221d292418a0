import { defineJob, defineSystemTask } from '../../platform/jobs/define.ts';
import type { JobInfo } from '../../platform/jobs/types.ts';
import { RUN_EXPIRE_SECONDS } from './runner.ts';

/** What a fired schedule carries; `runId` marks a manual run (the row exists already). */
export type CronPayload = { cronJobId: number; cron?: string; timezone?: string; runId?: number };

type SchedulerJobDeps = {
  /** executes a fired tick or a "run now" (runner.ts) */
  runCron: (payload: CronPayload, info: JobInfo) => Promise<unknown>;
  clock: () => Date;
  pruneRuns: (before: Date) => Promise<number>;
};

/**
 * Every cron job is one schedule of this queue, keyed by the job id (schedule.ts); "run now"
 * sends to it. A failed run is logged in the run log, not retried: the next tick is the retry.
 */
const cron = defineJob<CronPayload, SchedulerJobDeps>({
  name: 'scheduler.cron',
  options: { retryLimit: 0, deadLetter: false, expireInSeconds: RUN_EXPIRE_SECONDS, concurrency: 4 },
  handler: (payload, info, deps) => deps.runCron(payload, info),
});

const pruneRuns = defineSystemTask<SchedulerJobDeps>({
  name: 'scheduler.pruneRuns',
  description: 'Deletes finished cron job runs older than params.keepDays (default 30)',
  schedule: '30 3 * * *',
  async handler(params, _run, deps) {
    const keepDays = typeof params.keepDays === 'number' && params.keepDays >= 1 ? params.keepDays : 30;
    const before = new Date(deps.clock().getTime() - keepDays * 86_400_000);
    return { deleted: await deps.pruneRuns(before), before };
  },
});

/** The background work of the scheduler (registered by index.ts). */
export const schedulerJobs = { cron, pruneRuns };
