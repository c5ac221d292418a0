import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityStats } from '../../src/modules/identity/stats-repository.ts';
import { loginLogs, userSessions } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
type Session = {
  id: number;
  userId: number;
  username: string;
  ip: string;
  userAgent: string;
  createdAt: string;
  lastActiveAt: string;
  current?: boolean;
};

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
});
afterAll(async () => t?.close());

/** Signs in with a user agent of our own; returns the access token and the session id. */
async function signIn(tenantCode: string, username: string, userAgent: string) {
  const res = await call(t.app, 'POST', '/api/auth/login', {
    body: { username, password: USER_PASSWORD, tenantCode },
    headers: { 'user-agent': userAgent },
  });
  expect(res.statusCode, res.body).toBe(200);
  const token: string = res.json().data.accessToken;
  const sid = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).sid as number;
  return { token, sid };
}

async function list(query: string, token = a.adminToken): Promise<{ list: Session[]; total: number }> {
  const res = await call(t.app, 'GET', `/api/online-sessions${query}`, { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function sessionRow(id: number) {
  const [r] = await t.database.db.select().from(userSessions).where(eq(userSessions.id, id));
  return r;
}

describe('GET /api/online-sessions', () => {
  it('lists the live sessions of the caller’s tenant with user, ip, user agent and times', async () => {
    const s = await signIn(a.code, 'admin', 'Probe/1.0');
    const page = await list('');
    const mine = page.list.find((x) => x.id === s.sid);
    expect(mine).toMatchObject({ userId: a.adminUserId, username: 'admin', ip: '127.0.0.1', userAgent: 'Probe/1.0' });
    expect(typeof mine?.createdAt).toBe('string');
    expect(typeof mine?.lastActiveAt).toBe('string');
    const ofB = await list('', b.adminToken);
    expect(ofB.list.map((x) => x.id)).not.toContain(s.sid);
    expect(ofB.list.every((x) => x.userId === b.adminUserId)).toBe(true);
  });

  it('leaves out revoked and expired sessions, and filters by username and ip', async () => {
    const u = await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
    const revoked = await signIn(a.code, u.username, 'Revoked/1');
    const expired = await signIn(a.code, u.username, 'Expired/1');
    await call(t.app, 'POST', '/api/auth/logout', { token: revoked.token });
    await t.database.db
      .update(userSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(userSessions.id, expired.sid));

    const byUser = await list(`?username=${u.username}`);
    expect(byUser.total).toBe(1);
    expect(byUser.list[0]?.userAgent).not.toMatch(/Revoked|Expired/);
    expect((await list('?ip=127.0.0.1')).total).toBe((await list('')).total);
    expect((await list('?ip=10.9.9.9')).total).toBe(0);
  });

  it('refuses bad paging or filters naming the field', async () => {
    for (const [query, field] of [
      ['?pageSize=0', 'pageSize'],
      ['?username=', 'username'],
      ['?page=x', 'page'],
    ]) {
      const res = await call(t.app, 'GET', `/api/online-sessions${query}`, { token: a.adminToken });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });
});

describe('DELETE /api/online-sessions/:id', () => {
  it('forces a logout: the session’s token gets 401 at its next request', async () => {
    const u = await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
    const victim = await signIn(a.code, u.username, 'Victim/1');
    expect((await call(t.app, 'GET', '/api/auth/me', { token: victim.token })).statusCode).toBe(200);

    const res = await call(t.app, 'DELETE', `/api/online-sessions/${victim.sid}`, { token: a.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ ok: true });
    const after = await call(t.app, 'GET', '/api/auth/me', { token: victim.token });
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toBe('auth.invalid_token');
    expect(await sessionRow(victim.sid)).toMatchObject({ revokeReason: 'forced_logout' });
    expect((await list('')).list.map((x) => x.id)).not.toContain(victim.sid);
    // The user's other sessions are untouched.
    expect((await call(t.app, 'GET', '/api/auth/me', { token: u.token })).statusCode).toBe(200);

    const again = await call(t.app, 'DELETE', `/api/online-sessions/${victim.sid}`, { token: a.adminToken });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe('identity.session_not_found');
  });

  it('refuses a bad id naming it', async () => {
    const res = await call(t.app, 'DELETE', '/api/online-sessions/abc', { token: a.adminToken });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('id');
  });

  it('another tenant’s session is not found (404) and stays live', async () => {
    const s = await signIn(a.code, 'admin', 'Target/1');
    const res = await call(t.app, 'DELETE', `/api/online-sessions/${s.sid}`, { token: b.adminToken });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('identity.session_not_found');
    expect(await sessionRow(s.sid)).toMatchObject({ revokedAt: null });
    expect((await call(t.app, 'GET', '/api/auth/me', { token: s.token })).statusCode).toBe(200);
  });

  it('needs monitor:online:list to list and monitor:online:force-logout to end one (403)', async () => {
    const s = await signIn(a.code, 'admin', 'Kept/1');
    const viewer = await createUserWithPermissions(t, ['monitor:online:list'], {
      tenantId: a.tenantId,
      tenantCode: a.code,
    });
    const nobody = await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
    const list403 = await call(t.app, 'GET', '/api/online-sessions', { token: nobody.token });
    expect(list403.statusCode).toBe(403);
    expect(list403.json().error).toBe('auth.permission_denied');
    const kill403 = await call(t.app, 'DELETE', `/api/online-sessions/${s.sid}`, { token: viewer.token });
    expect(kill403.statusCode).toBe(403);
    expect(kill403.json().error).toBe('auth.permission_denied');
    expect(await sessionRow(s.sid)).toMatchObject({ revokedAt: null });
  });
});

describe('GET /api/profile/sessions', () => {
  it('lists my live sessions only and flags the current one', async () => {
    const u = await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
    const second = await signIn(a.code, u.username, 'Second/1');
    const ended = await signIn(a.code, u.username, 'Ended/1');
    await call(t.app, 'POST', '/api/auth/logout', { token: ended.token });

    const res = await call(t.app, 'GET', '/api/profile/sessions', { token: second.token });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { list: Session[]; total: number };
    expect(data.total).toBe(2);
    expect(data.list.every((s) => s.userId === u.userId)).toBe(true);
    expect(data.list.filter((s) => s.current).map((s) => s.id)).toEqual([second.sid]);
    expect(data.list.map((s) => s.id)).not.toContain(ended.sid);

    const bad = await call(t.app, 'GET', '/api/profile/sessions?pageSize=1000', { token: second.token });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('pageSize');
    expect((await call(t.app, 'GET', '/api/profile/sessions')).statusCode).toBe(401);
  });
});

describe('identityStats()', () => {
  it('counts users, online users (live and recently active) and today’s successful sign-ins', async () => {
    const c = await createTenant(t);
    const active = await createUserWithPermissions(t, [], { tenantId: c.tenantId, tenantCode: c.code });
    const idle = await createUserWithPermissions(t, [], { tenantId: c.tenantId, tenantCode: c.code });
    await call(t.app, 'POST', '/api/auth/login', {
      body: { username: idle.username, password: 'wrong-password', tenantCode: c.code },
    });
    const db = t.database.db;
    // idle: signed in, but not active within the access-token lifetime.
    await db
      .update(userSessions)
      .set({ lastActiveAt: new Date(Date.now() - 3600_000) })
      .where(eq(userSessions.userId, idle.userId));
    // A sign-in from yesterday (UTC) does not count today.
    await db.insert(loginLogs).values({
      tenantId: c.tenantId,
      userId: active.userId,
      username: active.username,
      ip: '127.0.0.1',
      success: true,
      reason: 'ok',
      createdAt: new Date(Date.now() - 86_400_000 * 2),
    });
    // Two sessions of one user count once.
    await signIn(c.code, active.username, 'Twice/1');

    const stats = await identityStats(db, { tenantId: c.tenantId }, new Date());
    expect(stats).toEqual({ users: 3, onlineUsers: 2, todayLogins: 4 });
    // An hour later with no activity, nobody is online any more (sessions still live).
    const later = await identityStats(db, { tenantId: c.tenantId }, new Date(Date.now() + 3600_000));
    expect(later.onlineUsers).toBe(0);
    const ofB = await identityStats(db, { tenantId: b.tenantId }, new Date());
    expect(ofB.users).toBe(1);
  });
});
