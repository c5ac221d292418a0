import { AppError } from '../../../platform/http/errors.ts';

/** Errors of the issue views (`monitor.*`). */
export const issueErrors = {
  groupNotFound: () => new AppError(404, 'monitor.error_group_not_found', 'Error issue not found'),
  /** A batch naming ids that are not issues of the caller's tenant: nothing was changed. */
  groupsNotFound: (ids: number[]) =>
    new AppError(404, 'monitor.error_group_not_found', `Error issues not found: ${ids.join(', ')}`, {
      details: ids.map((id) => ({ field: 'ids', message: `${id} not found` })),
    }),
};
