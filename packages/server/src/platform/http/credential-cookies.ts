import type { FastifyReply, FastifyRequest } from 'fastify';
import { httpErrors } from './errors.ts';

/**
 * Credentials a browser keeps where page scripts cannot read them (docs/decisions/0032): an
 * HttpOnly, SameSite=Strict cookie sent back only to the paths that take it, Secure whenever the
 * service is reached over HTTPS. The one place cookies are written and read: the refresh token
 * of a console sign-in and the access session of a share link's page.
 */
export type CredentialCookie = {
  /** one name per kind of credential; several paths may each hold their own */
  name: string;
  /** how long the browser keeps it (the credential's own lifetime) */
  maxAgeSeconds: number;
};

/**
 * The header a script on the service's own pages adds to a state-changing request that carries a
 * credential cookie. A cross-site HTML form cannot send it, and a page of another origin cannot
 * send it without a CORS preflight these routes do not answer, so a forged request never rides
 * on the browser's cookie (OWASP CSRF cheat sheet, "custom request headers"); SameSite=Strict
 * already keeps the cookie off cross-site requests, this also covers sibling sites.
 */
export const SCRIPTED_REQUEST_HEADER = 'x-requested-with';

/** RFC 6265 §4.1.1: a cookie value and a path of these characters need no quoting or escaping. */
const SAFE_VALUE = /^[A-Za-z0-9._~-]{1,512}$/;
const SAFE_PATH = /^\/[A-Za-z0-9._~%/-]{0,1024}$/;

/** What the cookies read of a request (a route's typed request or Fastify's). */
type CookieRequest = Pick<FastifyRequest, 'protocol' | 'headers' | 'method'>;

export function createCredentialCookies(opts: { publicBaseUrl: string }) {
  // A service published over HTTPS never hands out a cookie that could travel in clear, even when
  // a request reached it over plain HTTP (a proxy without TRUST_PROXY, a health check).
  const publishedOverHttps = opts.publicBaseUrl.startsWith('https:');
  // req.protocol is X-Forwarded-Proto's only with TRUST_PROXY (Fastify's trustProxy).
  const secure = (req: CookieRequest) => publishedOverHttps || req.protocol === 'https';
  // Published under a path (https://host/office, a proxy stripping /office), the browser sees
  // /office/api/…: the cookie's path is that one, or the browser would never send it back.
  const prefix = new URL(opts.publicBaseUrl).pathname.replace(/\/+$/, '');

  function header(req: CookieRequest, cookie: CredentialCookie, route: string, value: string, maxAge: number) {
    const path = `${prefix}${route}`;
    if (!SAFE_VALUE.test(value) && value !== '') throw new Error(`${cookie.name}: a cookie value must be a token`);
    if (!SAFE_PATH.test(path)) throw new Error(`${cookie.name}: unsafe cookie path ${path}`);
    const attributes = [`${cookie.name}=${value}`, `Path=${path}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Strict'];
    if (secure(req)) attributes.push('Secure');
    return attributes.join('; ');
  }

  return {
    /** Hands `value` to the browser for the service's `path` (under PUBLIC_BASE_URL's) and the paths under it. */
    set(req: CookieRequest, reply: FastifyReply, cookie: CredentialCookie, path: string, value: string): void {
      reply.header('set-cookie', header(req, cookie, path, value, cookie.maxAgeSeconds));
    },
    /** Makes the browser drop the cookie (same name and path, Max-Age=0: RFC 6265 §5.3 step 11). */
    clear(req: CookieRequest, reply: FastifyReply, cookie: CredentialCookie, path: string): void {
      reply.header('set-cookie', header(req, cookie, path, '', 0));
    },
  };
}

export type CredentialCookies = ReturnType<typeof createCredentialCookies>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The value of the credential cookie `name`, or null. A state-changing request must also carry
 * SCRIPTED_REQUEST_HEADER, else it is refused (403) rather than acted on with the cookie.
 */
export function readCredentialCookie(req: Pick<CookieRequest, 'headers' | 'method'>, name: string): string | null {
  const value = cookieValue(req.headers.cookie, name);
  if (value === null) return null;
  if (!SAFE_METHODS.has(req.method) && !req.headers[SCRIPTED_REQUEST_HEADER]) {
    throw httpErrors.cookieWithoutScriptHeader(name);
  }
  return value;
}

/**
 * The first `name=value` pair of a Cookie header (RFC 6265 §5.4: the most specific path comes
 * first), or null; an empty value is no value.
 */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}
