import { AppError } from '../../../platform/http/errors.ts';

/** Errors of the email channel (`messaging.email_*`). */
export const emailErrors = {
  configNotFound: () =>
    new AppError(404, 'messaging.email_config_not_found', 'No email configuration is saved at this scope'),
  notConfigured: () =>
    new AppError(409, 'messaging.email_not_configured', 'No enabled email configuration applies to this tenant'),
  templateNotFound: (field?: string) =>
    new AppError(404, 'messaging.email_template_not_found', 'email template not found', {
      ...(field ? { details: [{ field, message: 'no such email template' }] } : {}),
    }),
  templateCodeExists: () =>
    new AppError(409, 'messaging.email_template_exists', 'An email template with this code already exists', {
      details: [{ field: 'code', message: 'already exists' }],
    }),
  sendLogNotFound: (ids?: number[]) =>
    new AppError(404, 'messaging.email_send_log_not_found', 'email send log not found', {
      ...(ids ? { details: ids.map((id) => ({ field: 'ids', message: `no email send log with id ${id}` })) } : {}),
    }),
};
