import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshTokens, userSessions } from '../../src/modules/identity/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { ADMIN_PASSWORD, call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, USER_PASSWORD } from '../helpers/fixtures.ts';

/**
 * The console's sign-in (docs/decisions/0032): the refresh token in an HttpOnly cookie scoped to
 * the refresh route, never in an answer a page script reads; API clients unchanged.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const WEEK = 7 * 86_400;
const SCRIPTED = { 'x-requested-with': 'fetch' };
const cookieOf = (res: LightMyRequestResponse) => {
  const header = res.headers['set-cookie'];
  return header === undefined ? [] : ([] as string[]).concat(header);
};
/** the cookie's value from an answer's one Set-Cookie */
const tokenIn = (res: LightMyRequestResponse) => /^atrium_refresh=([^;]*);/.exec(cookieOf(res)[0] ?? '')?.[1] ?? '';
const cleared = 'atrium_refresh=; Path=/api/auth/refresh; Max-Age=0; HttpOnly; SameSite=Strict';

async function browserLogin(username = 'admin', password = ADMIN_PASSWORD, app = t.app) {
  const res = await call(app, 'POST', '/api/auth/login', {
    body: { username, password, tenantCode: 'demo', cookie: true },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { res, cookie: tokenIn(res), accessToken: res.json().data.accessToken as string };
}

const refreshWithCookie = (cookie: string, headers: Record<string, string> = SCRIPTED, body: unknown = {}) =>
  call(t.app, 'POST', '/api/auth/refresh', { body, headers: { ...headers, cookie: `atrium_refresh=${cookie}` } });

describe('sign-in for a web page (cookie: true)', () => {
  it('sets the refresh token as an HttpOnly, SameSite=Strict cookie for the refresh route, and leaves it out of the answer', async () => {
    const { res, cookie, accessToken } = await browserLogin();
    expect(cookieOf(res)).toEqual([
      `atrium_refresh=${cookie}; Path=/api/auth/refresh; Max-Age=${WEEK}; HttpOnly; SameSite=Strict`,
    ]);
    const data = res.json().data;
    expect(data).not.toHaveProperty('refreshToken');
    expect(res.body).not.toContain(cookie);
    expect(data).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, refreshExpiresIn: WEEK });
    expect((await call(t.app, 'GET', '/api/auth/me', { token: accessToken })).statusCode).toBe(200);
    // the cookie's value is the refresh token itself: stored only as its digest
    const stored = await t.database.db
      .select()
      .from(refreshTokens)
      .where(eq(refreshTokens.tokenHash, sha256(cookie)));
    expect(stored).toHaveLength(1);
  });

  it('leaves API clients unchanged: no cookie, the refresh token in the answer', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.json().data.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cookieFalse = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo', cookie: false },
    });
    expect(cookieFalse.headers['set-cookie']).toBeUndefined();
    expect(cookieFalse.json().data.refreshToken).toBeTruthy();
  });

  it('sets no cookie on a refused sign-in', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: 'wrong', tenantCode: 'demo', cookie: true },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a cookie that is not a boolean', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo', cookie: 'yes' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('cookie');
  });
});

describe('refresh with the cookie', () => {
  it('rotates: a new access token, the new refresh token in the cookie only', async () => {
    const { cookie } = await browserLogin();
    const res = await refreshWithCookie(cookie);
    expect(res.statusCode, res.body).toBe(200);
    const next = tokenIn(res);
    expect(next).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(next).not.toBe(cookie);
    expect(cookieOf(res)).toEqual([
      `atrium_refresh=${next}; Path=/api/auth/refresh; Max-Age=${WEEK}; HttpOnly; SameSite=Strict`,
    ]);
    const data = res.json().data;
    expect(data).not.toHaveProperty('refreshToken');
    expect(res.body).not.toContain(next);
    const me = await call(t.app, 'GET', '/api/auth/me', { token: data.accessToken });
    expect(me.json().data.user.username).toBe('admin');
    // and the rotated cookie rotates again
    expect((await refreshWithCookie(next)).statusCode).toBe(200);
  });

  it('an old cookie presented again is a reuse: the session is revoked and the cookie emptied', async () => {
    const { cookie, accessToken } = await browserLogin();
    const first = await refreshWithCookie(cookie);
    const next = tokenIn(first);
    const replay = await refreshWithCookie(cookie);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error).toBe('auth.refresh_token_reused');
    expect(cookieOf(replay)).toEqual([cleared]);
    // every token of that sign-in is dead: the newest cookie, the access tokens before and after
    const newest = await refreshWithCookie(next);
    expect(newest.statusCode).toBe(401);
    expect(newest.json().error).toBe('auth.invalid_refresh_token');
    expect(cookieOf(newest)).toEqual([cleared]);
    expect((await call(t.app, 'GET', '/api/auth/me', { token: accessToken })).statusCode).toBe(401);
    const rotatedAccess = first.json().data.accessToken;
    expect((await call(t.app, 'GET', '/api/auth/me', { token: rotatedAccess })).statusCode).toBe(401);
  });

  it('answers 401 auth.refresh_token_missing without a cookie or a refresh token, setting nothing', async () => {
    const res = await call(t.app, 'POST', '/api/auth/refresh', { body: {}, headers: SCRIPTED });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.refresh_token_missing');
    expect(res.headers['set-cookie']).toBeUndefined();
    const empty = await call(t.app, 'POST', '/api/auth/refresh', {
      body: {},
      headers: { ...SCRIPTED, cookie: 'atrium_refresh=' },
    });
    expect(empty.json().error).toBe('auth.refresh_token_missing');
  });

  it('an unknown cookie is refused and emptied', async () => {
    const res = await refreshWithCookie('not-a-token');
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.invalid_refresh_token');
    expect(cookieOf(res)).toEqual([cleared]);
  });

  it('reads its own cookie among others', async () => {
    const { cookie } = await browserLogin();
    const res = await call(t.app, 'POST', '/api/auth/refresh', {
      body: {},
      headers: { ...SCRIPTED, cookie: `theme=dark; atrium_refresh_x=1; atrium_refresh=${cookie}; lang=en` },
    });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('a refresh token in the body wins over the cookie: the JSON client’s answer, no cookie set', async () => {
    const api = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo' },
    });
    const { cookie } = await browserLogin();
    const res = await refreshWithCookie(cookie, {}, { refreshToken: api.json().data.refreshToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.refreshToken).toBeTruthy();
    expect(res.headers['set-cookie']).toBeUndefined();
    // the cookie was not touched: it still rotates once
    expect((await refreshWithCookie(cookie)).statusCode).toBe(200);
  });
});

describe('cross-site requests (CSRF)', () => {
  it('refuses the cookie without X-Requested-With (403), and the token stays unused', async () => {
    const { cookie } = await browserLogin();
    const res = await refreshWithCookie(cookie, {});
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('request.script_header_required');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect((await refreshWithCookie(cookie)).statusCode).toBe(200);
  });

  it('refuses what an HTML form can send — urlencoded, multipart, text/plain — before reading the cookie', async () => {
    const { cookie } = await browserLogin();
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'a=1'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'],
      ['text/plain', '{}'],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        headers: { 'content-type': type, cookie: `atrium_refresh=${cookie}` },
        payload,
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await refreshWithCookie(cookie)).statusCode).toBe(200);
  });

  it('offers no CORS preflight to other origins on the refresh route', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/auth/refresh',
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-requested-with, content-type',
      },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-headers']).toBeUndefined();
  });
});

describe('sign-out and sessions ended elsewhere', () => {
  it('logout revokes the session and empties the cookie (same path, Max-Age=0)', async () => {
    const { cookie, accessToken } = await browserLogin();
    const res = await call(t.app, 'POST', '/api/auth/logout', { token: accessToken });
    expect(res.statusCode).toBe(200);
    expect(cookieOf(res)).toEqual([cleared]);
    const after = await refreshWithCookie(cookie);
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('auth.invalid_refresh_token');
    expect(cookieOf(after)).toEqual([cleared]);
  });

  it('a session ended by an administrator: its cookie answers 401 and is emptied; the user’s other session lives', async () => {
    const u = await createUserWithPermissions(t, []);
    const one = await browserLogin(u.username, USER_PASSWORD);
    const two = await browserLogin(u.username, USER_PASSWORD);
    const [session] = await t.database.db
      .select({ id: userSessions.id })
      .from(refreshTokens)
      .innerJoin(userSessions, eq(userSessions.id, refreshTokens.sessionId))
      .where(eq(refreshTokens.tokenHash, sha256(one.cookie)));
    const kick = await call(t.app, 'DELETE', `/api/online-sessions/${session?.id}`, { token: t.demoAdminToken });
    expect(kick.statusCode, kick.body).toBe(200);
    const refused = await refreshWithCookie(one.cookie);
    expect(refused.statusCode).toBe(401);
    expect(cookieOf(refused)).toEqual([cleared]);
    const other = await refreshWithCookie(two.cookie);
    expect(other.statusCode).toBe(200);
    const me = await call(t.app, 'GET', '/api/auth/me', { token: other.json().data.accessToken });
    expect(me.json().data.user.username).toBe(u.username);
  });

  it('a cookie is its own sign-in only: another user’s revoked session does not touch mine', async () => {
    const u = await createUserWithPermissions(t, []);
    const mine = await browserLogin(u.username, USER_PASSWORD);
    const theirs = await browserLogin();
    await call(t.app, 'POST', '/api/auth/logout', { token: theirs.accessToken });
    expect((await refreshWithCookie(theirs.cookie)).statusCode).toBe(401);
    const res = await refreshWithCookie(mine.cookie);
    expect(res.statusCode).toBe(200);
    const me = await call(t.app, 'GET', '/api/auth/me', { token: res.json().data.accessToken });
    expect(me.json().data.user).toMatchObject({ username: u.username, tenantId: t.demoTenantId });
  });
});

describe('Secure', () => {
  it('is left off over plain HTTP, and X-Forwarded-Proto counts only with TRUST_PROXY', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo', cookie: true },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(cookieOf(res)[0]).not.toContain('Secure');
  });

  it('is set behind a trusted proxy that says https, and not when it says http', async () => {
    const proxied = await createTestApp({ env: { TRUST_PROXY: 'true' } });
    try {
      const login = (proto: string) =>
        call(proxied.app, 'POST', '/api/auth/login', {
          body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo', cookie: true },
          headers: { 'x-forwarded-proto': proto },
        });
      const https = await login('https');
      expect(cookieOf(https)[0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      expect(cookieOf(await login('http'))[0]).not.toContain('Secure');
      // the rotation and the sign-out keep it
      const rotated = await proxied.app.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        headers: { ...SCRIPTED, 'x-forwarded-proto': 'https', cookie: `atrium_refresh=${tokenIn(https)}` },
        payload: {},
      });
      expect(cookieOf(rotated)[0]).toMatch(/; Secure$/);
      const out = await call(proxied.app, 'POST', '/api/auth/logout', {
        token: https.json().data.accessToken,
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(cookieOf(out)).toEqual([`${cleared}; Secure`]);
    } finally {
      await proxied.close();
    }
  });

  it('is always set when PUBLIC_BASE_URL is https, even for a request that came over HTTP', async () => {
    const published = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://office.example.com' } });
    try {
      const { res } = await browserLogin('admin', ADMIN_PASSWORD, published.app);
      expect(cookieOf(res)[0]).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      await published.close();
    }
  });
});

describe('over a real socket', () => {
  it('the raw Set-Cookie headers a browser gets, and the cookie it sends back', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo', cookie: true }),
    });
    expect(login.status).toBe(200);
    const [set] = login.headers.getSetCookie();
    expect(set).toMatch(
      new RegExp(
        `^atrium_refresh=[A-Za-z0-9_-]{43}; Path=/api/auth/refresh; Max-Age=${WEEK}; HttpOnly; SameSite=Strict$`,
      ),
    );
    expect(login.headers.getSetCookie()).toHaveLength(1);
    const body = await login.text();
    const sent = (set ?? '').split(';')[0] ?? '';
    expect(body).not.toContain(sent.split('=')[1]);

    const refresh = await fetch(`${base}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'fetch', cookie: sent },
      body: '{}',
    });
    expect(refresh.status).toBe(200);
    expect(refresh.headers.getSetCookie()[0]).toMatch(/^atrium_refresh=[A-Za-z0-9_-]{43}; Path=\/api\/auth\/refresh;/);
    const refreshed = (await refresh.json()).data;
    expect(refreshed.refreshToken).toBeUndefined();

    const logout = await fetch(`${base}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${refreshed.accessToken}` },
    });
    expect(logout.status).toBe(200);
    expect(logout.headers.getSetCookie()).toEqual([cleared]);
  });
});

describe('the document', () => {
  it('declares the cookie parameter of refresh and the Set-Cookie of login, refresh and logout', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    const op = (path: string) => doc.paths[path].post;
    expect(op('/api/auth/refresh').parameters).toContainEqual(
      expect.objectContaining({ in: 'cookie', name: 'atrium_refresh', required: false }),
    );
    for (const path of ['/api/auth/login', '/api/auth/refresh', '/api/auth/logout']) {
      const header = op(path).responses['200'].headers?.['Set-Cookie'];
      expect(header, path).toMatchObject({ schema: { type: 'string' } });
      expect(header.description, path).toContain('Always HttpOnly and SameSite=Strict; Secure over HTTPS.');
    }
    const login = op('/api/auth/login');
    expect(login.requestBody.content['application/json'].schema.properties.cookie.type).toBe('boolean');
    const refreshBody = op('/api/auth/refresh').requestBody.content['application/json'].schema;
    expect(refreshBody.required ?? []).not.toContain('refreshToken');
  });
});
