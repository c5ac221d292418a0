import { AppError } from '../../../platform/http/errors.ts';

/** Errors of the SMS channel (`messaging.sms_*`). */
export const smsErrors = {
  configNotFound: () => new AppError(404, 'messaging.sms_config_not_found', 'SMS configuration not found'),
  configNameExists: () =>
    new AppError(409, 'messaging.sms_config_exists', 'An SMS configuration with this name already exists', {
      details: [{ field: 'name', message: 'already exists' }],
    }),
  configIsDefault: () =>
    new AppError(
      409,
      'messaging.sms_config_default',
      'The default SMS configuration cannot be deleted while others exist; make another one the default first',
    ),
  configDisabled: () =>
    new AppError(409, 'messaging.sms_config_disabled', 'A disabled SMS configuration cannot be the default'),
  configInUse: () => new AppError(409, 'messaging.sms_config_in_use', 'SMS templates still use this configuration'),
  defaultConflict: () =>
    new AppError(409, 'messaging.sms_default_conflict', 'Another default was set at the same time; try again'),
  templateNotFound: (field?: string) =>
    new AppError(404, 'messaging.sms_template_not_found', 'SMS template not found', {
      ...(field ? { details: [{ field, message: 'no such SMS template' }] } : {}),
    }),
  templateCodeExists: () =>
    new AppError(409, 'messaging.sms_template_exists', 'An SMS template with this code already exists', {
      details: [{ field: 'code', message: 'already exists' }],
    }),
  sendLogNotFound: () => new AppError(404, 'messaging.sms_send_log_not_found', 'SMS send log not found'),
};
