import { AppError } from '../../platform/http/errors.ts';

/** Errors of the task center (`tasks.*`). */
export const tasksErrors = {
  taskNotFound: () => new AppError(404, 'tasks.task_not_found', 'task not found'),
  resultNotFound: () =>
    new AppError(404, 'tasks.result_not_found', 'The task has no result to download (not finished, or expired)'),
  taskFinished: (status: string) =>
    new AppError(409, 'tasks.task_finished', `The task has already finished (${status}) and cannot be cancelled`),
};
