import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import { type AppError, oauthErrorBody, oauthErrorStatus, oauthStatusOf } from './errors.ts';
import { Envelope } from './schemas.ts';

/**
 * How a route answers (route `reply`): the body of its success, and the body of every error on
 * it, the kernel's own included (validation, 401, 413, 415, 429, 500…). The default is the
 * envelope; protocol endpoints answer in their protocol's shape (OAuth 2, a payment channel's
 * acknowledgement). Each half also says what the OpenAPI document (and the JSON serializer)
 * shows for it.
 */
export type ReplyFormat = { success: SuccessFormat; error: ErrorFormat };

export type SuccessFormat = {
  /** media type of the body; JSON when absent; the range of any type when the handler sets the body's own */
  mediaType?: string;
  /** the body's schema, from the route's `schema.response` */
  schema(response: TSchema): TSchema;
  /** the body for what the handler returned; the route's status and `mediaType` are set already */
  body(data: unknown, reply: FastifyReply): unknown;
};

export type ErrorFormat = {
  /** media type of the body; JSON when absent */
  mediaType?: string;
  /** the body's schema, shared by every error status of the route */
  schema: TSchema | { $ref: string };
  /**
   * The status an error of the kernel's `status` is answered with, when the format decides it (a
   * protocol maps the kernel's 404, 413 or 415 to its own code and status); absent: the same.
   * A route's `errors` name statuses as the format answers them.
   */
  statusOf?(status: number): number;
  /**
   * The body for an error; the status (`err.status`) and `mediaType` are set already, and the
   * format may change them (a protocol's own status for a code) or add headers.
   * `err.internal` is for the log only, never for the body.
   */
  body(err: AppError, reply: FastifyReply): unknown;
};

/** `{ code: 0, message: 'ok', data }`. */
export const envelopeSuccess: SuccessFormat = {
  schema: (response) => Envelope(response),
  body: (data) => ({ code: 0, message: 'ok', data }),
};

/** `{ code, error, message, details?, retryAfter?, requestId }` (docs/api-conventions.md). */
export const envelopeErrors: ErrorFormat = {
  schema: { $ref: 'ErrorBody#' },
  body: (err, reply) => envelopeOf(err, reply.request.id),
};

/** What the handler returned is the whole body, in `mediaType` (JSON when absent). */
export function bodyAsIs(mediaType?: string): SuccessFormat {
  return { mediaType, schema: (response) => response, body: (data) => data };
}

/**
 * RFC 6749 §5.2 `{ error, error_description }` with the status of spec §7.1, never cached
 * (§5.1); the kernel's own errors are mapped to the nearest protocol code.
 */
export const oauthErrors: ErrorFormat = {
  schema: { $ref: 'OAuthErrorBody#' },
  statusOf: oauthStatusOf,
  body: (err, reply) => {
    const body = oauthErrorBody(err);
    reply.code(oauthErrorStatus(err, body.error)).header('cache-control', 'no-store').header('pragma', 'no-cache');
    return body;
  },
};

export const replyFormats = {
  /** the default: success and errors in the envelope */
  envelope: { success: envelopeSuccess, error: envelopeErrors },
  /** a body of the route's own (a document, an HTML page); errors in the envelope */
  body: (mediaType?: string): ReplyFormat => ({ success: bodyAsIs(mediaType), error: envelopeErrors }),
  /**
   * stored bytes in their own media type, which the handler sets (a download, a preview): the
   * document names the range of any type rather than claim one; errors in the envelope
   */
  file: { success: bodyAsIs('*/*'), error: envelopeErrors },
  /** OAuth 2 protocol endpoints: the protocol's JSON as is, errors as RFC 6749 §5.2 */
  oauth: { success: bodyAsIs(), error: oauthErrors },
} satisfies Record<string, ReplyFormat | ((mediaType?: string) => ReplyFormat)>;

export function envelopeOf(err: AppError, requestId: string) {
  return {
    code: err.status,
    error: err.key,
    message: err.message,
    ...(err.details ? { details: err.details } : {}),
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    ...err.extra,
    requestId,
  };
}
