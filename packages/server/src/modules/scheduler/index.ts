import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Notifier } from '../messaging/index.ts';
import { schedulerJobs } from './jobs.ts';
import * as repo from './repository.ts';
import { cronJobRoutes } from './routes/cron-jobs.ts';
import { cronRunRoutes } from './routes/cron-runs.ts';
import { createRunner } from './runner.ts';
import { createScheduleSync } from './schedule.ts';
import { createCronJobsService } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    scheduler: SchedulerModule;
  }
}

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
  const jobs = ctx.jobs.register(schedulerJobs, () => ({
    runCron,
    clock: ctx.clock,
    pruneRuns: (before: Date) => repo.pruneRuns(ctx.db, before),
  }));
  const sync = createScheduleSync(ctx, jobs.cron);
  const service = createCronJobsService(ctx, sync, jobs.cron);
  const runCron = createRunner(ctx, sync, { db: ctx.db, ...deps });

  const mod = {
    service,
    /** the queue every cron job is a schedule of */
    cron: jobs.cron,
    async register(app: FastifyInstance) {
      app.decorate('scheduler', mod);
      cronJobRoutes(app, service);
      cronRunRoutes(app, service);
      // Jobs have started by then (app.ts): seed built-in jobs and align every schedule.
      app.addHook('onReady', async () => sync.all());
    },
  };
  return mod;
}

export type SchedulerModule = ReturnType<typeof createSchedulerModule>;
