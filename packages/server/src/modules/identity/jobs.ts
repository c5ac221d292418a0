import type { SystemTask } from '../../platform/jobs/types.ts';

/** System tasks of the identity module, declared beside their code. Each run uses the application clock. */
export function systemTasks(deps: {
  clock: () => Date;
  notifyTenantExpiry: (now: Date) => Promise<{ notified: number }>;
}): SystemTask[] {
  return [
    {
      name: 'identity.notifyTenantExpiry',
      description: 'Tell tenant administrators 30, 7 and 1 days before their tenant expires, and when it has',
      schedule: '5 1 * * *',
      handler: async () => deps.notifyTenantExpiry(deps.clock()),
    },
  ];
}
