import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Notifier } from '../messaging/index.ts';
import { schedulerTasks } from './jobs.ts';
import { cronJobRoutes } from './routes/cron-jobs.ts';
import { cronRunRoutes } from './routes/cron-runs.ts';
import { createRunner, RUN_EXPIRE_SECONDS } from './runner.ts';
import { CRON_QUEUE, type CronPayload, createScheduleSync } from './schedule.ts';
import { createCronJobsService } from './service.ts';

export { schedulerEvents } from './events.ts';

/**
 * The cron jobs admin (release 0.1.0): jobs bound to registered system tasks, fired once per tick
 * across instances by pg-boss schedules, with a run log.
 */
export type SchedulerDeps = {
  notify: Notifier['notify'];
  /** who failure alerts go to: cron jobs are platform-level */
  platformAdmins: () => Promise<number[]>;
};

export function createSchedulerModule(ctx: AppContext, deps: SchedulerDeps) {
  for (const task of schedulerTasks(ctx)) ctx.jobs.registerSystemTask(task);
  const sync = createScheduleSync(ctx);
  const service = createCronJobsService(ctx, sync);
  // A failed run is logged in the run log, not retried: the next tick is the retry.
  void ctx.jobs.defineQueue<CronPayload>(CRON_QUEUE, createRunner(ctx, sync, { db: ctx.db, ...deps }), {
    retryLimit: 0,
    deadLetter: false,
    expireInSeconds: RUN_EXPIRE_SECONDS,
    concurrency: 4,
  });

  return {
    service,
    async register(app: FastifyInstance) {
      cronJobRoutes(app, service);
      cronRunRoutes(app, service);
      // Jobs have started by then (app.ts): seed built-in jobs and align every schedule.
      app.addHook('onReady', async () => sync.all());
    },
  };
}

export type SchedulerModule = ReturnType<typeof createSchedulerModule>;
