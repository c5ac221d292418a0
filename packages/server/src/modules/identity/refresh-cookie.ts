import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CredentialCookies, readCredentialCookie } from '../../platform/http/credential-cookies.ts';
import { AppError } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import type { Sessions, TokenPair } from './sessions.ts';

/**
 * The console's sign-in (docs/decisions/0032): its refresh token lives in an HttpOnly cookie sent
 * back to the refresh route only, never in an answer a page script reads. API clients keep the
 * token in the JSON answer and never get the cookie: one token, one place.
 */
export const REFRESH_COOKIE = 'atrium_refresh';
export const REFRESH_COOKIE_PATH = '/api/auth/refresh';

/** What the document says of the cookie, per route. */
export const refreshCookieDocs = {
  login: `With cookie: true: ${REFRESH_COOKIE}=<the refresh token>; Path=${REFRESH_COOKIE_PATH}; Max-Age=<refreshExpiresIn>`,
  refresh: {
    reads: {
      [REFRESH_COOKIE]:
        'the refresh token of a sign-in made with cookie: true, used when the body has no refreshToken (with the X-Requested-With header)',
    },
    sets: `When the token came from the cookie: ${REFRESH_COOKIE}=<the rotated refresh token>; Path=${REFRESH_COOKIE_PATH}; Max-Age=<refreshExpiresIn>; a 401 empties it (Max-Age=0)`,
  },
  logout: `Emptied, so the browser forgets the session: ${REFRESH_COOKIE}=; Path=${REFRESH_COOKIE_PATH}; Max-Age=0`,
};

type Request = Pick<FastifyRequest, 'protocol' | 'headers' | 'method'>;

export function createRefreshCookie(deps: {
  cookies: CredentialCookies;
  sessions: Pick<Sessions, 'refresh'>;
  refreshTokenTtlSeconds: number;
}) {
  const cookie = { name: REFRESH_COOKIE, maxAgeSeconds: deps.refreshTokenTtlSeconds };

  /** The answer for a browser: the refresh token goes into the cookie and out of the answer. */
  function handOver<P extends TokenPair>(req: Request, reply: FastifyReply, pair: P): Omit<P, 'refreshToken'> {
    const { refreshToken, ...answer } = pair;
    deps.cookies.set(req, reply, cookie, REFRESH_COOKIE_PATH, refreshToken);
    return answer;
  }

  function clear(req: Request, reply: FastifyReply): void {
    deps.cookies.clear(req, reply, cookie, REFRESH_COOKIE_PATH);
  }

  return {
    handOver,
    clear,

    /** Rotates the cookie's refresh token (reuse detection as for API clients: sessions.refresh). */
    async refresh(req: Request, reply: FastifyReply) {
      const token = readCredentialCookie(req, REFRESH_COOKIE);
      if (token === null) throw identityErrors.refreshTokenMissing();
      try {
        return handOver(req, reply, await deps.sessions.refresh(token));
      } catch (err) {
        // a dead token (used, revoked, expired) is dropped by the browser; a 429 or a 503 keeps it
        if (err instanceof AppError && err.status === 401) clear(req, reply);
        throw err;
      }
    },
  };
}

export type RefreshCookie = ReturnType<typeof createRefreshCookie>;
