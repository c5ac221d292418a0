import type { Jobs, SystemTask } from '../../platform/jobs/types.ts';

type TaskDeps = {
  checkServerThresholds: () => Promise<{ alerts: number }>;
  checkLicense: () => Promise<{ notified: number | null }>;
};

/** Registers the ops module's system tasks (at module creation). */
export function registerSystemTasks(jobs: Pick<Jobs, 'registerSystemTask'>, deps: TaskDeps) {
  for (const task of systemTasks(deps)) jobs.registerSystemTask(task);
}

/** System tasks of the ops module, declared beside their code. */
function systemTasks(deps: TaskDeps): SystemTask[] {
  return [
    {
      name: 'ops.checkServerThresholds',
      description: 'Alert the platform administrators when CPU, memory or disk crosses its threshold (ops settings)',
      schedule: '*/5 * * * *',
      handler: async () => deps.checkServerThresholds(),
    },
    {
      name: 'ops.checkLicense',
      description: 'Remind the platform administrators 30, 7 and 1 days before the licence expires, and when it has',
      schedule: '15 1 * * *',
      handler: async () => deps.checkLicense(),
    },
  ];
}
