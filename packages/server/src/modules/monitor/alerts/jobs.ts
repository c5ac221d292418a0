import { defineSystemTask } from '../../../platform/jobs/define.ts';

/** Alert rules are evaluated at report time and on this schedule (spec §4.6 rule 6). */
const evaluateErrorAlerts = defineSystemTask<{ evaluateAll: () => Promise<unknown> }>({
  name: 'monitor.evaluateErrorAlerts',
  description: 'Evaluate front-end error alert rules and notify',
  schedule: '*/5 * * * *',
  handler: async (_params, _run, deps) => deps.evaluateAll(),
});

/** Registered by the alerts index.ts. */
export const alertJobs = { evaluateErrorAlerts };
