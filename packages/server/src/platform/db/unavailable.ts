import { DrizzleQueryError } from 'drizzle-orm/errors';

/**
 * The service could not get a connection to PostgreSQL (refused, no socket, timed out, the pool
 * closed, too many connections): raised by the pool (client.ts) around the driver's error.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: Error) {
    super(`PostgreSQL cannot be reached: ${cause.message}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * A connection the server ended or lost while in use, as the driver reports it: SQLSTATE class 08
 * (connection exception), 57P01–57P03 (terminated by an administrator or a shutdown, a crash of
 * another server process, not accepting connections yet: starting or recovering), 53300 (too many
 * connections), or the driver's own words for a connection that ended under a query.
 */
const LOST_STATES = /^(08...|57P0[123]|53300)$/;
const LOST_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

/** What a connection to PostgreSQL fails with, beside the above, when the driver gives the socket's error. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

/** PostgreSQL could not be reached or went away under the request: a 503 the caller may retry. */
export function databaseUnavailable(err: unknown): boolean {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  // a socket error under a query (`write EPIPE` on a connection whose server just died) is the
  // database's; a bare one may be any dependency's
  let underQuery = false;
  // Drizzle wraps the driver's error (DrizzleQueryError): look through a few causes
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof DatabaseUnavailableError) return true;
    if (typeof e.code === 'string' && LOST_STATES.test(e.code)) return true;
    if (typeof e.message === 'string' && LOST_MESSAGES.test(e.message)) return true;
    if (underQuery && typeof e.code === 'string' && SOCKET_CODES.has(e.code)) return true;
    underQuery ||= e instanceof DrizzleQueryError;
    e = e.cause as typeof e;
  }
  return false;
}
const CONNECT_MESSAGES = /^timeout exceeded when trying to connect/;

/**
 * databaseUnavailable, for an error known to come from a PostgreSQL connection that is not the
 * pool's (pg-boss's own pool, the LISTEN connection): a socket error says the server is away too.
 */
export function connectionFailed(err: unknown): boolean {
  if (databaseUnavailable(err)) return true;
  const e = err as { code?: unknown; message?: unknown } | undefined;
  return (
    (typeof e?.code === 'string' && SOCKET_CODES.has(e.code)) ||
    (typeof e?.message === 'string' && CONNECT_MESSAGES.test(e.message))
  );
}
