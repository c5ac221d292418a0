import { defineSystemTask } from '../../platform/jobs/define.ts';

/** What the tasks below call; each run uses the application clock. */
type FilesJobDeps = {
  clock: () => Date;
  collectOrphans: (now: Date) => Promise<{ deleted: number }>;
  expireUploadSessions: (now: Date) => Promise<{ expired: number }>;
};

/** Spec §8: orphaned files are collected after 24 hours. */
const collectOrphans = defineSystemTask<FilesJobDeps>({
  name: 'files.collectOrphans',
  description: 'Delete stored objects that have had no reference for more than 24 hours',
  schedule: '*/30 * * * *',
  handler: async (_params, _run, deps) => deps.collectOrphans(deps.clock()),
});

const expireUploadSessions = defineSystemTask<FilesJobDeps>({
  name: 'files.expireUploadSessions',
  description: 'Delete expired chunked upload sessions and their chunks',
  schedule: '17 * * * *',
  handler: async (_params, _run, deps) => deps.expireUploadSessions(deps.clock()),
});

/** The background work of the files module (registered by index.ts). */
export const filesJobs = { collectOrphans, expireUploadSessions };
