import { AppError } from '../../../platform/http/errors.ts';

/** Errors of in-app messages and templates (`messaging.*`). */
export const inAppErrors = {
  messageNotFound: (ids?: number[]) =>
    new AppError(404, 'messaging.in_app_message_not_found', 'in-app message not found', {
      ...(ids ? { details: ids.map((id) => ({ field: 'ids', message: `no in-app message with id ${id}` })) } : {}),
    }),
  templateNotFound: () => new AppError(404, 'messaging.in_app_template_not_found', 'in-app template not found'),
  templateCodeExists: () =>
    new AppError(409, 'messaging.in_app_template_exists', 'An in-app template with this code already exists', {
      details: [{ field: 'code', message: 'already exists' }],
    }),
};
