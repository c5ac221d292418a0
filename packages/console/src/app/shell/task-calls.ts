import { useSyncExternalStore } from 'react';
import { api, unwrap } from '../../api/client';
import { downloadFile } from '../../components/download';

/**
 * The signed-in person's tasks (GET /api/tasks: their own exports, with status and progress) as
 * the header's task drawer reads them. Keys stay under ['tasks'], the prefix the live hub
 * invalidates on `task.finished` (live.ts TOPIC_KEYS): a finished task shows at once.
 */
export const taskKeys = {
  all: ['tasks'],
  active: ['tasks', 'active'],
  page: (page: number) => ['tasks', 'page', page],
} as const;

export const TASK_PAGE_SIZE = 10;

export const taskPage = (page: number) =>
  unwrap(api.GET('/api/tasks', { params: { query: { page, pageSize: TASK_PAGE_SIZE } } }));
export type TaskPage = Awaited<ReturnType<typeof taskPage>>;
export type TaskItem = TaskPage['list'][number];

/** Tasks not finished yet (queued or running): two counts, exact however old the task. */
export async function activeTaskCount(): Promise<number> {
  const count = (status: 'queued' | 'running') =>
    unwrap(api.GET('/api/tasks', { params: { query: { page: 1, pageSize: 1, status } } })).then((p) => p.total);
  const [queued, running] = await Promise.all([count('queued'), count('running')]);
  return queued + running;
}

export const isActive = (task: Pick<TaskItem, 'status'>) => task.status === 'queued' || task.status === 'running';

export const cancelTask = (id: number) => unwrap(api.POST('/api/tasks/{id}/cancel', { params: { path: { id } } }));

/** The result file, fetched with the session (the task's `resultUrl` needs it too) and saved under its name. */
export const downloadTaskResult = (task: Pick<TaskItem, 'id'>) =>
  downloadFile(
    api.GET('/api/tasks/{id}/result', { params: { path: { id: task.id } }, parseAs: 'blob' }),
    `task-${task.id}`,
  );

// Whether the drawer is open: the header's button and a page that has just started an export
// ("View tasks") both open it.
let drawerOpen = false;
const listeners = new Set<() => void>();
export function setTaskDrawerOpen(open: boolean) {
  if (drawerOpen === open) return;
  drawerOpen = open;
  for (const l of listeners) l();
}
export function useTaskDrawerOpen(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => drawerOpen,
  );
}
