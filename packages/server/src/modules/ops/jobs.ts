import type { SystemTask } from '../../platform/jobs/types.ts';

/** System tasks of the ops module, declared beside their code. */
export function systemTasks(deps: {
  checkServerThresholds: () => Promise<{ alerts: number }>;
  checkLicense: () => Promise<{ notified: number | null }>;
}): SystemTask[] {
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
