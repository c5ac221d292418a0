import type { SystemTask } from '../../platform/jobs/types.ts';

/**
 * System tasks of the files module, declared beside their code (ARCHITECTURE §2): the orphan
 * collector (spec §8: orphaned files collected after 24 hours) and the cleanup of expired
 * chunked upload sessions. Each run uses the application clock.
 */
export function systemTasks(deps: {
  clock: () => Date;
  collectOrphans: (now: Date) => Promise<{ deleted: number }>;
  expireUploadSessions: (now: Date) => Promise<{ expired: number }>;
}): SystemTask[] {
  return [
    {
      name: 'files.collectOrphans',
      description: 'Delete stored objects that have had no reference for more than 24 hours',
      schedule: '*/30 * * * *',
      handler: async () => deps.collectOrphans(deps.clock()),
    },
    {
      name: 'files.expireUploadSessions',
      description: 'Delete expired chunked upload sessions and their chunks',
      schedule: '17 * * * *',
      handler: async () => deps.expireUploadSessions(deps.clock()),
    },
  ];
}
