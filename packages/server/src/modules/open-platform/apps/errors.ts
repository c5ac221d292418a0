import { AppError } from '../../../platform/http/errors.ts';

/** Errors of application (OAuth client) administration (`open_platform.*`). */
export const appErrors = {
  appNotFound: () => new AppError(404, 'open_platform.app_not_found', 'Application not found'),
  nameExists: () =>
    new AppError(409, 'open_platform.app_name_exists', 'An application with this name already exists', {
      details: [{ field: 'name', message: 'already exists' }],
    }),
  publicClientHasNoSecret: () =>
    new AppError(
      409,
      'open_platform.public_client_has_no_secret',
      'A public client has no secret to rotate (it authenticates with PKCE only)',
    ),
};
