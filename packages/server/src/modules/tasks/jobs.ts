import type { SystemTask } from '../../platform/jobs/types.ts';

/** System tasks of the task center, declared beside their code; each run uses the app clock. */
export function systemTasks(deps: {
  clock: () => Date;
  expireResults: (now: Date) => Promise<{ expired: number }>;
}): SystemTask[] {
  return [
    {
      name: 'tasks.expireResults',
      description: 'Drop the result files of tasks whose result expired (7 days); the file collector removes them',
      schedule: '41 * * * *',
      handler: async () => deps.expireResults(deps.clock()),
    },
  ];
}
