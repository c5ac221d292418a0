import { defineSystemTask } from '../../../platform/jobs/define.ts';

const purgeExpiredTokens = defineSystemTask<{ purgeExpired: (now: Date) => Promise<unknown>; clock: () => Date }>({
  name: 'open-platform.purgeExpiredTokens',
  description: 'Delete OAuth tokens and codes that expired more than a day ago',
  schedule: '17 3 * * *',
  handler: async (_params, _run, deps) => deps.purgeExpired(deps.clock()),
});

/** Registered by the open-platform index.ts. */
export const oauthJobs = { purgeExpiredTokens };
