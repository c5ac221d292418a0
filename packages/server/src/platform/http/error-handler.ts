import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailable } from '../db/unavailable.ts';
import { AppError, type FieldError, httpErrors } from './errors.ts';
import { envelopeErrors, envelopeOf } from './reply-formats.ts';
import { requestIdInRawHead } from './request-id.ts';

/**
 * Every error a client sees, in one place: thrown AppErrors, validation, the framework's own
 * refusals (bad JSON, sizes, media types, URLs, sockets) and anything unexpected, each answered
 * in the route's reply format (route `reply`: the envelope `{ code, error, message, details?,
 * requestId }` unless the route answers a protocol's shape) with `X-Request-Id`. A 500 shows no
 * internals; its log line has them, without query parameters. A client's bad input is logged
 * once, at `info`, or `warn` when it reached the database (a schema should have refused it: the
 * fuzz test fails on those). An AppError's `internal` detail goes to that log line only.
 */
export async function handleError(err: FastifyError | AppError, req: FastifyRequest, reply: FastifyReply) {
  const appErr = toAppError(err);
  const internal = appErr.internal === undefined ? {} : { internal: appErr.internal };
  // an outage fails every request alike: one short line each, the database's own words
  if (appErr.key === 'ops.database_unavailable')
    req.log.warn({ error: appErr.key, cause: rootCause(err) }, 'request failed: the database cannot be reached');
  else if (appErr.status >= 500) req.log.error({ err: loggable(err), ...internal }, 'request failed');
  // the database's message quotes the value (`invalid input syntax for type integer: "…"`): not logged
  else if (appErr.key === 'request.invalid_value')
    req.log.warn({ sqlState: sqlState(err), query: queryOf(err) }, 'input reached the database');
  else req.log.info({ error: appErr.key, status: appErr.status, ...internal }, 'request rejected');
  if (appErr.headers) reply.headers(appErr.headers);
  const format = req.routeOptions?.config?.reply?.error ?? envelopeErrors;
  reply
    .header('x-request-id', req.id)
    .code(appErr.status)
    .type(format.mediaType ?? 'application/json; charset=utf-8');
  return reply.send(format.body(appErr, reply));
}

/** Fastify's `frameworkErrors`: a URL that is not valid percent-encoding, a path parameter too long. */
export function handleFrameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const appErr =
    err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError(414, 'request.uri_too_long', 'A path segment of the request URL is too long')
      : err.code === 'FST_ERR_BAD_URL'
        ? new AppError(400, 'request.bad_url', 'The request URL is not valid percent-encoded UTF-8')
        : httpErrors.internal();
  if (appErr.status >= 500) req.log.error({ err: loggable(err) }, 'request failed');
  reply.header('x-request-id', req.id).code(appErr.status).send(envelopeOf(appErr, req.id));
}

const SOCKET_ERRORS: Record<string, AppError> = {
  HPE_HEADER_OVERFLOW: new AppError(431, 'request.headers_too_large', 'The request URL or headers are too large'),
  ERR_HTTP_REQUEST_TIMEOUT: new AppError(408, 'request.timeout', 'The request was not received in time'),
  ERR_HTTP_HEADERS_TIMEOUT: new AppError(408, 'request.timeout', 'The request was not received in time'),
};

/**
 * Node's own refusals, before a request exists (`clientError`): headers or URL too large, a
 * request that took too long, bytes that are not HTTP. Answered in the envelope too, with the
 * caller's X-Request-Id when it is among the bytes received (or a fresh one), then the
 * connection is closed.
 */
export function handleClientError(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const appErr =
    SOCKET_ERRORS[err.code ?? ''] ?? new AppError(400, 'request.malformed', 'The request is not valid HTTP');
  const requestId = requestIdInRawHead(err.rawPacket);
  const body = JSON.stringify(envelopeOf(appErr, requestId));
  socket.end(
    `HTTP/1.1 ${appErr.status} ${REASONS[appErr.status] ?? 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * What the multipart parser (busboy) throws for a body that is not well-formed multipart: plain
 * Errors without a code, known by their text.
 */
const MALFORMED_MULTIPART =
  /^(Unexpected end of multipart data|Multipart: Boundary not found|Malformed part header|Unexpected end of form)$/;

/**
 * PostgreSQL data exceptions (class 22: text it cannot store, numbers or dates past a type's
 * range) and 54000 (an index row too large): the input was wrong, not the server. Schemas are
 * meant to refuse all of these first; this keeps one that slipped through a 400, not a 500.
 */
function databaseRefusedInput(err: unknown): boolean {
  const code = sqlState(err);
  return code !== undefined && (code.startsWith('22') || code === '54000');
}

/**
 * 40P01 (PostgreSQL broke a deadlock by aborting this transaction) and 40001 (a serialization
 * failure): the request met a concurrent one and nothing it did was committed; the same request
 * again will normally pass.
 */
function concurrencyFailure(err: unknown): boolean {
  const code = sqlState(err);
  return code === '40P01' || code === '40001';
}

/** Maps anything thrown to the error contract; internals never reach the client. */
function toAppError(err: FastifyError | AppError): AppError {
  if (err instanceof AppError) return err;
  if (err.validation) {
    return httpErrors.validation(err.validation.map((v) => fieldError(v, err.validationContext)));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return httpErrors.malformedJson();
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_REQ_FILE_TOO_LARGE':
      return httpErrors.bodyTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return httpErrors.unsupportedMediaType();
    case 'FST_MP_PREMATURE_CLOSE':
    case 'FST_PROTO_VIOLATION':
      return httpErrors.malformedMultipart();
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return httpErrors.malformedJson();
  if (typeof err.message === 'string' && MALFORMED_MULTIPART.test(err.message)) return httpErrors.malformedMultipart();
  if (databaseUnavailable(err)) return httpErrors.databaseUnavailable();
  if (dependencyUnreachable(err)) return httpErrors.unavailable();
  if (databaseRefusedInput(err)) return httpErrors.invalidValue();
  if (concurrencyFailure(err)) return httpErrors.concurrentUpdate();
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError(err.statusCode, 'request.invalid', err.message);
  }
  return httpErrors.internal();
}

type Cause = { code?: unknown; message?: unknown; cause?: unknown };

/** An error and the causes it wraps (Drizzle wraps the driver's error), at most five deep. */
function* chainOf(err: unknown): Generator<Cause> {
  let e = err as Cause | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e;
    e = e.cause as Cause | undefined;
  }
}

/** The SQLSTATE of a database error, looked for through wrappers. */
function sqlState(err: unknown): string | undefined {
  for (const e of chainOf(err)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** The message of the innermost cause (the driver's or the socket's), without the query. */
function rootCause(err: unknown): string | undefined {
  let message: string | undefined;
  for (const e of chainOf(err)) if (typeof e.message === 'string') message = e.message;
  return message;
}

/** The SQL text of a failed query (Drizzle keeps it apart from its parameters). */
function queryOf(err: unknown): string | undefined {
  const q = (err as { query?: unknown } | undefined)?.query;
  return typeof q === 'string' ? q : undefined;
}

/**
 * A connection some other part refused or dropped, not converted where it was made: a 503 the
 * caller may retry, without naming the part (PostgreSQL's are `ops.database_unavailable`, above).
 */
function dependencyUnreachable(err: unknown): boolean {
  for (const e of chainOf(err)) {
    if (typeof e.code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(e.code)) return true;
  }
  return false;
}

/**
 * An error as the log shows it: message, code and stack of it and its causes, without the query
 * parameters Drizzle appends to its message (they hold what the client sent, secrets included)
 * and without the driver's `detail` (it quotes row values).
 */
export function loggable(err: unknown, depth = 0): Record<string, unknown> | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { name?: string; message?: string; code?: unknown; stack?: string; cause?: unknown };
  const strip = (s: string | undefined) => s?.replace(/\nparams: [\s\S]*?(?=\n {4}at |$)/, '');
  return {
    type: e.name,
    message: strip(e.message),
    ...(e.code !== undefined ? { code: e.code } : {}),
    stack: strip(e.stack),
    ...(e.cause ? { cause: loggable(e.cause, depth + 1) } : {}),
  };
}

type AjvError = { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string };

function fieldError(v: AjvError, context: string | undefined): FieldError {
  const path = v.instancePath
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (v.keyword === 'required' && typeof v.params.missingProperty === 'string') {
    path.push(v.params.missingProperty);
  }
  if (v.keyword === 'additionalProperties' && typeof v.params.additionalProperty === 'string') {
    path.push(v.params.additionalProperty);
  }
  const field = path.length ? path.join('.') : (context ?? 'body');
  const limit = v.params.limit;
  return {
    field,
    message: v.message ?? 'is invalid',
    rule: v.keyword,
    ...(typeof limit === 'number' && Number.isFinite(limit) ? { limit } : {}),
  };
}
