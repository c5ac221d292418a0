import { AppError } from '../../platform/http/errors.ts';

/** Errors of the identity module (`identity.*`, and `auth.*` for sign-in). */
export const identityErrors = {
  invalidCredentials: () => new AppError(401, 'auth.invalid_credentials', 'Wrong username or password'),
  /** Says where a captcha comes from, and how a script signs in without one. */
  captchaRequired: (missing: boolean) =>
    new AppError(
      400,
      'auth.captcha_invalid',
      `${missing ? 'A captcha is required' : 'The captcha answer is wrong or expired (each captcha answers once)'}: ` +
        'get an image and its captchaId from GET /api/auth/captcha, then sign in with captchaId and captchaCode. ' +
        'Scripts and development: the security setting captchaEnabled turns it off (its default comes from CAPTCHA_ENABLED=false at start).',
      { details: [{ field: 'captchaCode', message: missing ? 'missing' : 'wrong or expired' }] },
    ),
  accountLocked: (until: Date) =>
    new AppError(403, 'auth.account_locked', `The account is locked until ${until.toISOString()}`),
  accountDisabled: () => new AppError(403, 'auth.account_disabled', 'The account is disabled'),
  tenantUnavailable: () => new AppError(403, 'auth.tenant_unavailable', 'The tenant is disabled or expired'),
  invalidRefreshToken: () => new AppError(401, 'auth.invalid_refresh_token', 'The refresh token is invalid or expired'),
  refreshTokenMissing: () =>
    new AppError(
      401,
      'auth.refresh_token_missing',
      'No refresh token: send refreshToken, or the refresh cookie of a sign-in made with cookie: true',
    ),
  refreshTokenReused: () =>
    new AppError(401, 'auth.refresh_token_reused', 'The refresh token was already used; the session is revoked'),
  wrongPassword: () =>
    new AppError(400, 'auth.wrong_password', 'The current password is wrong', {
      details: [{ field: 'oldPassword', message: 'does not match the current password', rule: 'wrong_password' }],
    }),
  weakPassword: (field: string, min: number) =>
    new AppError(400, 'request.validation_failed', 'The request has invalid fields', {
      details: [{ field, message: `must be at least ${min} characters`, rule: 'minLength', limit: min }],
    }),
  samePassword: () =>
    new AppError(400, 'request.validation_failed', 'The request has invalid fields', {
      details: [{ field: 'newPassword', message: 'must differ from the current password', rule: 'same_password' }],
    }),
  unknownTenant: () =>
    new AppError(400, 'identity.unknown_tenant', 'No such tenant', {
      details: [{ field: 'X-Tenant-Id', message: 'no tenant with this id' }],
    }),
  notFound: (what: string) => new AppError(404, `identity.${what}_not_found`, `${what.replace('_', ' ')} not found`),
  /** A batch naming ids that are not in the caller's tenant: nothing was changed. */
  notFoundIds: (what: string, ids: number[]) =>
    new AppError(404, `identity.${what}_not_found`, `${what.replace('_', ' ')} not found: ${ids.join(', ')}`, {
      details: ids.map((id) => ({ field: 'ids', message: `${id} not found` })),
    }),
  userIsSelf: (field: string) =>
    new AppError(400, 'identity.user_is_self', 'You cannot delete or disable your own account', {
      details: [{ field, message: 'includes your own account' }],
    }),
  superAdminProtected: () =>
    new AppError(403, 'identity.super_admin_protected', 'Only a super administrator can change a super administrator'),
  menuHasChildren: () =>
    new AppError(409, 'identity.menu_has_children', 'The menu has child nodes; delete or move them first'),
  conflict: (what: string, field: string) =>
    new AppError(409, `identity.${what}_exists`, `A ${what.replace('_', ' ')} with this ${field} already exists`, {
      details: [{ field, message: 'already exists', rule: 'unique' }],
    }),
};
