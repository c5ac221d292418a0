import { AppError } from '../../platform/http/errors.ts';

/** Errors of the cron jobs admin (`scheduler.*`). */
export const schedulerErrors = {
  jobNotFound: () => new AppError(404, 'scheduler.cron_job_not_found', 'cron job not found'),
  jobExists: () =>
    new AppError(409, 'scheduler.cron_job_exists', 'A cron job with this name already exists', {
      details: [{ field: 'name', message: 'already exists' }],
    }),
  builtin: (field?: string) =>
    new AppError(
      409,
      'scheduler.cron_job_builtin',
      'A built-in cron job keeps its name and handler and cannot be deleted; disable it instead',
      field ? { details: [{ field, message: 'cannot change on a built-in job' }] } : undefined,
    ),
};
