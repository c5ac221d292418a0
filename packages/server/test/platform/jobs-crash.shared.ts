import { defineJob } from '../../src/platform/jobs/define.ts';
import type { JobInfo } from '../../src/platform/jobs/types.ts';

/** The queue the crash test and its child process share (short expiry: the sweep finds it fast). */
export const CRASH_QUEUE = 'test.outbox_crash';
export const crashJob = defineJob<
  { orderId: number },
  { handle: (p: { orderId: number }, job: JobInfo) => Promise<unknown> }
>({
  name: CRASH_QUEUE,
  options: { expireInSeconds: 3, retryLimit: 2, retryDelay: 0, retryBackoff: false, pollingIntervalSeconds: 1 },
  handler: (payload, job, deps) => deps.handle(payload, job),
});
