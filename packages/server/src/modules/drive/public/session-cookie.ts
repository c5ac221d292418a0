import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CredentialCookies, readCredentialCookie } from '../../../platform/http/credential-cookies.ts';
import { SESSION_TTL_SECONDS } from './link-access.ts';

/**
 * A share page in the browser keeps the link's access session in an HttpOnly cookie, sent back to
 * that link's routes only (docs/decisions/0032); API clients keep the X-Share-Session header.
 */
export const SHARE_SESSION_COOKIE = 'atrium_share_session';

/**
 * The link's anonymous routes: without a trailing slash, so the metadata route
 * (`…/shares/{token}`) gets the cookie too, and a longer token never does (RFC 6265 §5.1.4).
 */
const pathOf = (token: string) => `/api/drive/public/shares/${token}`;

export const shareSessionCookieDocs = {
  reads: {
    [SHARE_SESSION_COOKIE]:
      'the access session of a password opened with cookie: true, used when there is no X-Share-Session header ' +
      '(a POST needs the X-Requested-With header with it)',
  },
  sets: `With cookie: true: ${SHARE_SESSION_COOKIE}=<the session>; Path=/api/drive/public/shares/{token}; Max-Age=${SESSION_TTL_SECONDS}`,
};

type Request = Pick<FastifyRequest, 'protocol' | 'headers' | 'method'>;

/** The access session a request brings: its X-Share-Session header, else the link's cookie. */
export function shareSessionOf(req: Pick<FastifyRequest, 'headers' | 'method'>): string | null {
  const header = req.headers['x-share-session'];
  const given = Array.isArray(header) ? header[0] : header;
  return given ?? readCredentialCookie(req, SHARE_SESSION_COOKIE);
}

export function createShareSessionCookie(cookies: CredentialCookies) {
  const cookie = { name: SHARE_SESSION_COOKIE, maxAgeSeconds: SESSION_TTL_SECONDS };
  return {
    /** The answer for a browser: the session goes into the link's cookie and out of the answer. */
    handOver(req: Request, reply: FastifyReply, token: string, session: { sessionToken: string; expiresAt: Date }) {
      cookies.set(req, reply, cookie, pathOf(token), session.sessionToken);
      return { expiresAt: session.expiresAt };
    },
  };
}

export type ShareSessionCookie = ReturnType<typeof createShareSessionCookie>;
