/**
 * The one error type a handler or service throws for an expected failure. The error handler
 * turns it into `{ code, error, message, details?, requestId }` with `status` as HTTP status.
 * Modules keep their factories in `errors.ts` (`identityErrors.userNotFound()`).
 */
export type FieldError = { field: string; message: string };

export class AppError extends Error {
  readonly status: number;
  readonly key: string;
  readonly details: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** seconds a client should wait before retrying (429, 503); also sent as `Retry-After` */
  readonly retryAfter: number | undefined;

  constructor(
    status: number,
    key: string,
    message: string,
    opts?: { details?: FieldError[]; headers?: Record<string, string>; retryAfter?: number },
  ) {
    super(message);
    this.status = status;
    this.key = key;
    this.details = opts?.details;
    this.retryAfter = opts?.retryAfter;
    this.headers =
      opts?.retryAfter === undefined ? opts?.headers : { ...opts?.headers, 'retry-after': String(opts.retryAfter) };
  }
}

/** Errors every module may raise; module-specific ones live in the module's errors.ts. */
export const httpErrors = {
  validation: (details: FieldError[]) =>
    new AppError(400, 'request.validation_failed', 'The request has invalid fields', { details }),
  invalidField: (field: string, message: string) =>
    new AppError(400, 'request.validation_failed', 'The request has invalid fields', {
      details: [{ field, message }],
    }),
  malformedJson: () => new AppError(400, 'request.malformed_json', 'The request body is not valid JSON'),
  bodyTooLarge: () => new AppError(413, 'request.body_too_large', 'The request body is too large'),
  unsupportedMediaType: () =>
    new AppError(415, 'request.unsupported_media_type', 'The request content type is not supported'),
  routeNotFound: (method: string, url: string) => new AppError(404, 'route.not_found', `No route ${method} ${url}`),
  notFound: (key: string, what: string) => new AppError(404, key, `${what} not found`),
  conflict: (key: string, message: string, field?: string) =>
    new AppError(409, key, message, field ? { details: [{ field, message }] } : undefined),
  unauthenticated: (message = 'Sign-in required') => new AppError(401, 'auth.unauthenticated', message),
  forbidden: (permission: string) => new AppError(403, 'auth.permission_denied', `Missing permission ${permission}`),
  featureDisabled: (feature: string) =>
    new AppError(403, 'license.feature_disabled', `The licence does not include the feature "${feature}"`),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(429, 'request.rate_limited', 'Too many requests, try again later', {
      retryAfter: retryAfterSeconds,
    }),
  internal: () => new AppError(500, 'internal.error', 'Internal server error'),
};
