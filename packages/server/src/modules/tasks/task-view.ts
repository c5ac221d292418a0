import type { PublicLinks } from '../../platform/http/public-links.ts';
import type { TaskRow } from './tables.ts';

/** Where the owner downloads a task's result: the one spelling of the link (views and the realtime push). */
export const resultUrlOf = (links: PublicLinks, taskId: number) => links.to(`/api/tasks/${taskId}/result`);

/** A task as its owner sees it; the result file itself is reached only through the task. */
export function toTaskView(row: TaskRow, now: Date, links: PublicLinks) {
  const resultAvailable =
    row.status === 'succeeded' &&
    row.resultFileId !== null &&
    row.resultExpiresAt !== null &&
    row.resultExpiresAt > now;
  return {
    id: row.id,
    kind: row.kind,
    params: row.params,
    status: row.status,
    progress: row.progress,
    error: row.error,
    cancelRequested: row.cancelRequested,
    resultAvailable,
    resultUrl: resultAvailable ? resultUrlOf(links, row.id) : null,
    resultExpiresAt: row.resultExpiresAt,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export type TaskView = ReturnType<typeof toTaskView>;
