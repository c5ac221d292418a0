import { AppError } from '../../platform/http/errors.ts';

/** Errors of the system module (`system.*`): dictionaries, configs, notices, operation logs. */
export const systemErrors = {
  notFound: (what: string, ids?: number[]) =>
    new AppError(404, `system.${what}_not_found`, `${what.replace(/_/g, ' ')} not found`, {
      ...(ids
        ? { details: ids.map((id) => ({ field: 'ids', message: `no ${what.replace(/_/g, ' ')} with id ${id}` })) }
        : {}),
    }),
  conflict: (what: string, field: string) =>
    new AppError(409, `system.${what}_exists`, `A ${what.replace(/_/g, ' ')} with this ${field} already exists`, {
      details: [{ field, message: 'already exists' }],
    }),
  configBuiltin: (field?: string) =>
    new AppError(409, 'system.config_builtin', 'A built-in configuration entry cannot be deleted or renamed', {
      ...(field ? { details: [{ field, message: 'cannot change on a built-in entry' }] } : {}),
    }),
  noticeNotPublished: () =>
    new AppError(409, 'system.notice_not_published', 'Only a published notice can be withdrawn'),
};
