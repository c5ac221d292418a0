import type { AppContext } from '../../platform/context.ts';
import type { SystemTask } from '../../platform/jobs/types.ts';
import * as repo from './repository.ts';

/** System tasks of the scheduler module, declared beside their code. */
export function schedulerTasks(ctx: AppContext): SystemTask[] {
  return [
    {
      name: 'scheduler.pruneRuns',
      description: 'Deletes finished cron job runs older than params.keepDays (default 30)',
      schedule: '30 3 * * *',
      async handler(params) {
        const keepDays = typeof params.keepDays === 'number' && params.keepDays >= 1 ? params.keepDays : 30;
        const before = new Date(ctx.clock().getTime() - keepDays * 86_400_000);
        return { deleted: await repo.pruneRuns(ctx.db, before), before };
      },
    },
  ];
}
