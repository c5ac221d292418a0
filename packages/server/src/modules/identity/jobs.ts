import { defineSystemTask } from '../../platform/jobs/define.ts';

/** What the tasks below call; each run uses the application clock. */
type IdentityJobDeps = { clock: () => Date; notifyTenantExpiry: (now: Date) => Promise<{ notified: number }> };

const notifyTenantExpiry = defineSystemTask<IdentityJobDeps>({
  name: 'identity.notifyTenantExpiry',
  description: 'Tell tenant administrators 30, 7 and 1 days before their tenant expires, and when it has',
  schedule: '5 1 * * *',
  handler: async (_params, _run, deps) => deps.notifyTenantExpiry(deps.clock()),
});

/** The background work of the identity module (registered by index.ts). */
export const identityJobs = { notifyTenantExpiry };
