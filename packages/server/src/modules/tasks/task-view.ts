import type { TaskRow } from './tables.ts';

/** A task as its owner sees it; the result file itself is reached only through the task. */
export function toTaskView(row: TaskRow, now: Date) {
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
    resultUrl: resultAvailable ? `/api/tasks/${row.id}/result` : null,
    resultExpiresAt: row.resultExpiresAt,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

export type TaskView = ReturnType<typeof toTaskView>;
