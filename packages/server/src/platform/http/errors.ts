import { Type } from 'typebox';

/**
 * The one error type a handler or service throws for an expected failure. The error handler
 * turns it into `{ code, error, message, details?, requestId }` with `status` as HTTP status.
 * Modules keep their factories in `errors.ts` (`identityErrors.userNotFound()`).
 */
/**
 * One refused field. `rule` names what it broke, for a client to say it in the person's language:
 * a JSON Schema keyword (required, minLength, maxLength, pattern, format, minimum, maximum, enum,
 * type, …) or a rule of a service (unique, same_password, wrong_password); `limit` is the rule's bound.
 */
export type FieldError = { field: string; message: string; rule?: string; limit?: number };

export class AppError extends Error {
  readonly status: number;
  readonly key: string;
  readonly details: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** seconds a client should wait before retrying (429, 503); also sent as `Retry-After` */
  readonly retryAfter: number | undefined;
  /** further top-level body fields (an OAuth authorize error's `redirectUrl`) */
  readonly extra: Record<string, unknown> | undefined;
  /**
   * What only the operator may see (which check failed, an upstream's answer): logged with the
   * request id by the error handler, never sent to the client.
   */
  readonly internal: string | object | undefined;

  constructor(
    status: number,
    key: string,
    message: string,
    opts?: {
      details?: FieldError[];
      headers?: Record<string, string>;
      retryAfter?: number;
      extra?: Record<string, unknown>;
      internal?: string | object;
    },
  ) {
    super(message);
    this.status = status;
    this.key = key;
    this.details = opts?.details;
    this.extra = opts?.extra;
    this.internal = opts?.internal;
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
  malformedMultipart: () =>
    new AppError(400, 'request.malformed_multipart', 'The request body is not complete, well-formed multipart data'),
  /** a value the database refused (see error-handler.ts); schemas should refuse it first */
  invalidValue: () =>
    new AppError(400, 'request.invalid_value', 'A value in the request is out of range or not storable text'),
  bodyTooLarge: () => new AppError(413, 'request.body_too_large', 'The request body is too large'),
  unsupportedMediaType: (accepted?: readonly string[]) =>
    new AppError(
      415,
      'request.unsupported_media_type',
      accepted ? `The request body must be ${accepted.join(' or ')}` : 'The request content type is not supported',
    ),
  routeNotFound: (method: string, url: string) => new AppError(404, 'route.not_found', `No route ${method} ${url}`),
  notFound: (key: string, what: string) => new AppError(404, key, `${what} not found`),
  conflict: (key: string, message: string, field?: string) =>
    new AppError(409, key, message, field ? { details: [{ field, message, rule: 'unique' }] } : undefined),
  unauthenticated: (message = 'Sign-in required') => new AppError(401, 'auth.unauthenticated', message),
  /** a state-changing request carried a credential cookie without the header scripts add (credential-cookies.ts) */
  cookieWithoutScriptHeader: (cookie: string) =>
    new AppError(
      403,
      'request.script_header_required',
      `A request carrying the ${cookie} cookie must send the X-Requested-With header (any value)`,
    ),
  forbidden: (permission: string) => new AppError(403, 'auth.permission_denied', `Missing permission ${permission}`),
  featureDisabled: (feature: string) =>
    new AppError(403, 'license.feature_disabled', `The licence does not include the feature "${feature}"`),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(429, 'request.rate_limited', 'Too many requests, try again later', {
      retryAfter: retryAfterSeconds,
    }),
  concurrentUpdate: () =>
    new AppError(
      409,
      'request.concurrent_update',
      'A concurrent request changed the same data; nothing was saved, retry',
      {
        retryAfter: 1,
      },
    ),
  internal: () => new AppError(500, 'internal.error', 'Internal server error'),
  databaseUnavailable: () =>
    new AppError(503, 'ops.database_unavailable', 'The database cannot be reached, try again shortly', {
      retryAfter: 5,
    }),
  unavailable: () =>
    new AppError(503, 'service.unavailable', 'The service is temporarily unavailable, try again shortly', {
      retryAfter: 5,
    }),
};

/** RFC 6749 §5.2 / RFC 6750 §3.1 error codes with their HTTP status (spec §7.1). */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 400,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

/**
 * The status a kernel error of `status` is answered with on a protocol endpoint (oauthErrorBody,
 * oauthErrorStatus): 401, 429 and 5xx keep theirs, every other refusal is `invalid_request`, a 400.
 */
export function oauthStatusOf(status: number): number {
  if (status === 401 || status === 429 || status === 503) return status;
  return status >= 500 ? 500 : 400;
}

/** An OAuth protocol error: `key` is the RFC code, `message` the public error_description. */
export function oauthError(
  code: OAuthErrorCode,
  description: string,
  opts?: { headers?: Record<string, string>; extra?: Record<string, unknown>; internal?: string | object },
): AppError {
  return new AppError(OAUTH_ERROR_STATUS[code], code, description, opts);
}

/**
 * The wire shape of a protocol error (RFC 6749 §5.2): the response schema of every error status
 * of a route answering `replyFormats.oauth` errors, so the serializer does not demand the
 * envelope's fields.
 */
export const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'RFC 6749 §5.2 / RFC 6750 §3.1 error code' }),
    error_description: Type.String(),
    redirectUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'authorize only: where the consent page sends the browser back (RFC 6749 §4.1.2.1), absolute',
      }),
    ),
  },
  { $id: 'OAuthErrorBody', title: 'OAuth error' },
);

/**
 * The HTTP status a protocol error is answered with: the code's own (spec §7.1), so a kernel
 * 404/413/415 rendered as `invalid_request` is a 400 like every other `invalid_request`. A 429
 * keeps its status: its Retry-After means nothing on a 400.
 */
export function oauthErrorStatus(err: AppError, code: OAuthErrorCode): number {
  return err.status === 429 ? 429 : OAUTH_ERROR_STATUS[code];
}

/** The RFC 6749 §5.2 body for any error raised on a protocol endpoint. */
export function oauthErrorBody(err: AppError): { error: OAuthErrorCode; error_description: string } {
  if (err.key in OAUTH_ERROR_STATUS) {
    return { error: err.key as OAuthErrorCode, error_description: err.message, ...err.extra };
  }
  const described = err.details?.length
    ? err.details
        .map((d) => `${d.field} ${d.message.startsWith('must have required property') ? 'is required' : d.message}`)
        .join('; ')
    : err.message;
  if (err.status === 503) return { error: 'temporarily_unavailable', error_description: err.message };
  if (err.status >= 500) return { error: 'server_error', error_description: 'Internal server error' };
  if (err.status === 401) return { error: 'invalid_token', error_description: err.message };
  return { error: 'invalid_request', error_description: described };
}
