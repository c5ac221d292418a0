import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { shareLink } from './public-fixtures.ts';

/**
 * A share page in the browser (docs/decisions/0032): the password's access session in an
 * HttpOnly cookie scoped to the link's routes; API clients keep X-Share-Session.
 */
let t: TestApp;
let a: TenantFixture;
let owner: DriveUser;
let shared: NodeRow;
let top: NodeRow;

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  const sp = await space(t, a.tenantId);
  shared = await folder(t, a.tenantId, sp.id, null, 'shared');
  top = await file(t, a.tenantId, sp.id, shared, 'top.txt', '0123456789abcdefghij');
});
afterAll(async () => t?.close());

const TWELVE_HOURS = 12 * 3600;
const PASSWORD = 'Secret#1';
const SCRIPTED = { 'x-requested-with': 'fetch' };
const base = (token: string) => `/api/drive/public/shares/${token}`;
const link = () =>
  shareLink(t, shared, owner.userId, { password: PASSWORD, capabilities: ['preview', 'download', 'save'] });
const setCookies = (res: LightMyRequestResponse) => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const get = (url: string, cookie?: string) =>
  t.app.inject({ method: 'GET', url, headers: cookie ? { cookie: `atrium_share_session=${cookie}` } : {} });

async function openInBrowser(token: string) {
  const res = await call(t.app, 'POST', `${base(token)}/password`, {
    body: { password: PASSWORD, cookie: true },
    headers: SCRIPTED,
  });
  expect(res.statusCode, res.body).toBe(200);
  const session = /^atrium_share_session=([^;]+);/.exec(setCookies(res)[0] ?? '')?.[1] ?? '';
  return { res, session };
}

describe('a password opened with cookie: true', () => {
  it('sets the session as an HttpOnly, SameSite=Strict cookie for the link’s routes, not in the answer', async () => {
    const l = await link();
    const { res, session } = await openInBrowser(l.token);
    expect(setCookies(res)).toEqual([
      `atrium_share_session=${session}; Path=/api/drive/public/shares/${l.token}; Max-Age=${TWELVE_HOURS}; HttpOnly; SameSite=Strict`,
    ]);
    expect(Object.keys(res.json().data)).toEqual(['expiresAt']);
    expect(res.body).not.toContain(session);
  });

  it('the cookie opens the link: metadata, browsing, a plain download link and a preview', async () => {
    const l = await link();
    const { session } = await openInBrowser(l.token);
    const meta = await get(base(l.token), session);
    expect(meta.json().data).toMatchObject({ passwordRequired: true, hasSession: true, node: { id: shared.id } });
    expect((await get(`${base(l.token)}/nodes`, session)).json().data.list.map((n: NodeRow) => n.id)).toEqual([top.id]);
    // a GET needs no script header: an <a href> download sends the cookie and nothing else
    const content = await get(`${base(l.token)}/content?nodeId=${top.id}`, session);
    expect(content.statusCode).toBe(200);
    expect(content.body).toBe('0123456789abcdefghij');
    expect((await get(`${base(l.token)}/preview?nodeId=${top.id}`, session)).statusCode).toBe(200);
    // without it, the link is still locked
    expect((await get(base(l.token))).json().data).toEqual({ passwordRequired: true, hasSession: false });
  });

  it('keeps API clients unchanged: no cookie, the session token in the answer and as X-Share-Session', async () => {
    const l = await link();
    const res = await call(t.app, 'POST', `${base(l.token)}/password`, { body: { password: PASSWORD } });
    expect(res.headers['set-cookie']).toBeUndefined();
    const { sessionToken } = res.json().data;
    expect(sessionToken).toBeTruthy();
    const nodes = await t.app.inject({
      method: 'GET',
      url: `${base(l.token)}/nodes`,
      headers: { 'x-share-session': sessionToken },
    });
    expect(nodes.statusCode).toBe(200);
  });

  it('sets nothing for a wrong password', async () => {
    const l = await link();
    const res = await call(t.app, 'POST', `${base(l.token)}/password`, {
      body: { password: 'wrong', cookie: true },
      headers: SCRIPTED,
    });
    expectError(res, 401, 'drive.share_wrong_password');
    expect(res.headers['set-cookie']).toBeUndefined();
  });
});

describe('what the cookie cannot do', () => {
  it('open another link, or outlive a revoke or a password change', async () => {
    const l = await link();
    const other = await link();
    const { session } = await openInBrowser(l.token);
    expectError(await get(`${base(other.token)}/nodes`, session), 401, 'drive.share_password_required');
    await t.database.db
      .update(driveShareLinks)
      .set({ sessionVersion: l.sessionVersion + 1 })
      .where(eq(driveShareLinks.id, l.id));
    expectError(await get(`${base(l.token)}/nodes`, session), 401, 'drive.share_password_required');
  });

  it('act on a POST without X-Requested-With (a cross-site form): 403; with it the save goes through', async () => {
    const l = await link();
    const { session } = await openInBrowser(l.token);
    const save = (headers: Record<string, string>) =>
      call(t.app, 'POST', `${base(l.token)}/save`, {
        token: owner.token,
        body: { nodeId: top.id },
        headers: { cookie: `atrium_share_session=${session}`, ...headers },
      });
    expectError(await save({}), 403, 'request.script_header_required');
    expect((await save(SCRIPTED)).statusCode).toBe(201);
  });

  it('stand in for a header that names a session: X-Share-Session wins', async () => {
    const l = await link();
    const { session } = await openInBrowser(l.token);
    const res = await t.app.inject({
      method: 'GET',
      url: `${base(l.token)}/nodes`,
      headers: { cookie: `atrium_share_session=${session}`, 'x-share-session': 'made-up' },
    });
    expectError(res, 401, 'drive.share_password_required');
  });
});

describe('over a real socket, and in the document', () => {
  it('the raw Set-Cookie a browser gets, and the download it then makes with the cookie alone', async () => {
    const l = await link();
    const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const open = await fetch(`${url}${base(l.token)}/password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requested-with': 'fetch' },
      body: JSON.stringify({ password: PASSWORD, cookie: true }),
    });
    expect(open.status).toBe(200);
    const [set] = open.headers.getSetCookie();
    expect(set).toMatch(
      new RegExp(
        `^atrium_share_session=[A-Za-z0-9_-]{43}; Path=/api/drive/public/shares/${l.token}; Max-Age=${TWELVE_HOURS}; HttpOnly; SameSite=Strict$`,
      ),
    );
    const download = await fetch(`${url}${base(l.token)}/content?nodeId=${top.id}`, {
      headers: { cookie: (set ?? '').split(';')[0] ?? '' },
    });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('0123456789abcdefghij');
  });

  it('declares the cookie on every route that takes the session, and the Set-Cookie of the password', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    const p = '/api/drive/public/shares/{token}';
    for (const [path, method] of [
      [p, 'get'],
      [`${p}/nodes`, 'get'],
      [`${p}/content`, 'get'],
      [`${p}/preview`, 'get'],
      [`${p}/save`, 'post'],
      [`${p}/submissions`, 'post'],
    ] as const) {
      expect(doc.paths[path][method].parameters, `${method} ${path}`).toContainEqual(
        expect.objectContaining({ in: 'cookie', name: 'atrium_share_session' }),
      );
    }
    const password = doc.paths[`${p}/password`].post;
    expect(password.responses['200'].headers['Set-Cookie'].description).toContain('atrium_share_session=');
    expect(password.requestBody.content['application/json'].schema.properties.cookie.type).toBe('boolean');
  });
});
