import type { Jobs, SystemTask } from '../../platform/jobs/types.ts';

type TaskDeps = { clock: () => Date; notifyTenantExpiry: (now: Date) => Promise<{ notified: number }> };

/** Registers the identity module's system tasks (at module creation). */
export function registerSystemTasks(jobs: Pick<Jobs, 'registerSystemTask'>, deps: TaskDeps) {
  for (const task of systemTasks(deps)) jobs.registerSystemTask(task);
}

/** System tasks of the identity module, declared beside their code. Each run uses the application clock. */
function systemTasks(deps: TaskDeps): SystemTask[] {
  return [
    {
      name: 'identity.notifyTenantExpiry',
      description: 'Tell tenant administrators 30, 7 and 1 days before their tenant expires, and when it has',
      schedule: '5 1 * * *',
      handler: async () => deps.notifyTenantExpiry(deps.clock()),
    },
  ];
}
