import { defineSystemTask } from '../../platform/jobs/define.ts';

/** What the tasks below call. */
type OpsJobDeps = {
  checkServerThresholds: () => Promise<{ alerts: number }>;
  checkLicense: () => Promise<{ notified: number | null }>;
};

const checkServerThresholds = defineSystemTask<OpsJobDeps>({
  name: 'ops.checkServerThresholds',
  description: 'Alert the platform administrators when CPU, memory or disk crosses its threshold (ops settings)',
  schedule: '*/5 * * * *',
  handler: async (_params, _run, deps) => deps.checkServerThresholds(),
});

const checkLicense = defineSystemTask<OpsJobDeps>({
  name: 'ops.checkLicense',
  description: 'Remind the platform administrators 30, 7 and 1 days before the licence expires, and when it has',
  schedule: '15 1 * * *',
  handler: async (_params, _run, deps) => deps.checkLicense(),
});

/** The background work of the ops module (registered by index.ts). */
export const opsJobs = { checkServerThresholds, checkLicense };
