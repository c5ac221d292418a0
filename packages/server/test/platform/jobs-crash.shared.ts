import type { QueueOptions } from '../../src/platform/jobs/types.ts';

/** The queue the crash test and its child process share (short expiry: the sweep finds it fast). */
export const CRASH_QUEUE = 'test.outbox_crash';
export const crashQueueOptions: QueueOptions = {
  expireInSeconds: 3,
  retryLimit: 2,
  retryDelay: 0,
  retryBackoff: false,
  pollingIntervalSeconds: 1,
};
