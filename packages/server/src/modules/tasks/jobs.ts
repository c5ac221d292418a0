import { defineJob, defineSystemTask } from '../../platform/jobs/define.ts';
import type { JobInfo } from '../../platform/jobs/types.ts';

export type TaskJob = {
  taskId: number;
  tenantId: number | null;
  /** how many times the task was put back for a dependency outage (runner-service.ts) */
  deferrals?: number;
};

/** Parallel tasks per instance: one long export does not hold up everybody else's. */
export const TASK_CONCURRENCY = 2;

type TasksJobDeps = {
  /** the worker (runner-service.ts) */
  runTask: (job: TaskJob, info: JobInfo) => Promise<unknown>;
  clock: () => Date;
  expireResults: (now: Date) => Promise<{ expired: number }>;
};

/** One task run. A failure is recorded on the task, not retried; the one retry is for a worker that died. */
const run = defineJob<TaskJob, TasksJobDeps>({
  name: 'tasks.run',
  options: { retryLimit: 1, retryDelay: 5, deadLetter: false, expireInSeconds: 3600, concurrency: TASK_CONCURRENCY },
  handler: (job, info, deps) => deps.runTask(job, info),
});

const expireResults = defineSystemTask<TasksJobDeps>({
  name: 'tasks.expireResults',
  description: 'Drop the result files of tasks whose result expired (7 days); the file collector removes them',
  schedule: '41 * * * *',
  handler: async (_params, _run, deps) => deps.expireResults(deps.clock()),
});

/** The background work of the task center (registered by index.ts); each run uses the app clock. */
export const tasksJobs = { run, expireResults };
