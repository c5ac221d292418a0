import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginLogs } from '../../src/modules/identity/tables.ts';
import { ADMIN_PASSWORD, call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
type Log = {
  id: number;
  userId: number | null;
  username: string;
  ip: string;
  success: boolean;
  reason: string;
  createdAt: string;
};

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
  // Tenant A: a second successful sign-in, a wrong password, an unknown user; tenant B: one failure.
  await login(t.app, 'admin', USER_PASSWORD, a.code);
  await call(t.app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'wrong-password', tenantCode: a.code },
  });
  await call(t.app, 'POST', '/api/auth/login', {
    body: { username: 'ghost', password: 'whatever-pass', tenantCode: a.code },
  });
  await call(t.app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'wrong-password', tenantCode: b.code },
  });
  // Two old rows with known times for the range filter.
  await t.database.db.insert(loginLogs).values([
    {
      tenantId: a.tenantId,
      userId: a.adminUserId,
      username: 'admin',
      ip: '10.0.0.1',
      success: true,
      reason: 'ok',
      createdAt: new Date('2020-01-01T10:00:00Z'),
    },
    {
      tenantId: a.tenantId,
      userId: a.adminUserId,
      username: 'admin',
      ip: '10.0.0.1',
      success: true,
      reason: 'ok',
      createdAt: new Date('2020-01-02T10:00:00Z'),
    },
  ]);
});
afterAll(async () => t?.close());

async function list(query: string, token = a.adminToken): Promise<{ list: Log[]; total: number }> {
  const res = await call(t.app, 'GET', `/api/login-logs${query}`, { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('GET /api/login-logs', () => {
  it('lists the tenant’s sign-in attempts, newest first, with their fields', async () => {
    const page = await list('');
    expect(page.total).toBe(6);
    const times = page.list.map((l) => l.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(times.slice(-2)).toEqual(['2020-01-02T10:00:00.000Z', '2020-01-01T10:00:00.000Z']);
    expect(page.list[0]).toMatchObject({
      userId: null,
      username: 'ghost',
      success: false,
      reason: 'invalid_credentials',
      ip: '127.0.0.1',
    });
    expect(page.list[1]).toMatchObject({
      userId: a.adminUserId,
      username: 'admin',
      success: false,
      reason: 'invalid_credentials',
    });
    expect(page.list.filter((l) => l.success && l.ip === '127.0.0.1')).toHaveLength(2);
    const createdAt = page.list[0]?.createdAt ?? '';
    expect(new Date(createdAt).toISOString()).toBe(createdAt);
    expect(page.list).not.toContainEqual(expect.objectContaining({ username: 'ghost', reason: 'ok' }));
  });

  it('filters by username, userId, ip, success and time range (from inclusive, to exclusive)', async () => {
    expect((await list('?username=ghost')).total).toBe(1);
    expect((await list(`?userId=${a.adminUserId}`)).total).toBe(5);
    expect((await list('?ip=10.0.0.1')).total).toBe(2);
    expect((await list('?success=false')).list.map((l) => l.username).sort()).toEqual(['admin', 'ghost']);
    expect((await list('?success=true&ip=127.0.0.1')).total).toBe(2);
    const range = await list('?from=2020-01-01T10:00:00.000Z&to=2020-01-02T10:00:00Z');
    expect(range.list.map((l) => l.createdAt)).toEqual(['2020-01-01T10:00:00.000Z']);
    expect((await list('?from=2020-01-01T00:00:00Z&to=2020-01-03T00:00:00Z')).total).toBe(2);
    expect((await list('?from=2099-01-01T00:00:00Z')).total).toBe(0);
    const paged = await list('?pageSize=2&page=2');
    expect(paged).toMatchObject({ total: 6, page: 2, pageSize: 2 });
    expect(paged.list).toHaveLength(2);
  });

  it('refuses bad filters naming the field', async () => {
    for (const [query, field] of [
      ['?success=maybe', 'success'],
      ['?from=yesterday', 'from'],
      ['?to=2020-13-01', 'to'],
      ['?userId=0', 'userId'],
      ['?pageSize=201', 'pageSize'],
      ['?page=0', 'page'],
    ]) {
      const res = await call(t.app, 'GET', `/api/login-logs${query}`, { token: a.adminToken });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
  });

  it('needs monitor:login-log:list (403)', async () => {
    const u = await createUserWithPermissions(t, ['monitor:online:list']);
    const res = await call(t.app, 'GET', '/api/login-logs', { token: u.token });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.permission_denied');
    expect((await call(t.app, 'GET', '/api/login-logs')).statusCode).toBe(401);
  });

  it('shows only the caller’s tenant: tenant B sees none of A’s rows, even by A’s userId', async () => {
    const ofB = await list('', b.adminToken);
    expect(ofB.total).toBe(2);
    expect(ofB.list.map((l) => l.userId)).toEqual([b.adminUserId, b.adminUserId]);
    expect((await list(`?userId=${a.adminUserId}`, b.adminToken)).total).toBe(0);
    // A super administrator reads a tenant's log with X-Tenant-Id.
    const res = await call(t.app, 'GET', '/api/login-logs', { token: t.adminToken, tenantId: a.tenantId });
    expect(res.json().data.total).toBe(6);
  });
});

describe('GET /api/profile/login-logs', () => {
  it('lists my own sign-ins only, without any permission', async () => {
    const u = await createUserWithPermissions(t, []);
    await call(t.app, 'POST', '/api/auth/login', {
      body: { username: u.username, password: 'wrong-password', tenantCode: 'demo' },
    });
    const res = await call(t.app, 'GET', '/api/profile/login-logs', { token: u.token });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(2);
    expect(data.list.map((l: Log) => [l.userId, l.success])).toEqual([
      [u.userId, false],
      [u.userId, true],
    ]);
    const mine = await call(t.app, 'GET', '/api/profile/login-logs?pageSize=200', { token: a.adminToken });
    expect(mine.json().data.list.every((l: Log) => l.userId === a.adminUserId)).toBe(true);
    expect(mine.json().data.total).toBe(5);
  });

  it('a super administrator inside a tenant still sees their own platform sign-ins', async () => {
    await login(t.app, 'admin', ADMIN_PASSWORD);
    const res = await call(t.app, 'GET', '/api/profile/login-logs', { token: t.adminToken, tenantId: a.tenantId });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.total).toBeGreaterThanOrEqual(2);
    expect(res.json().data.list.every((l: Log) => l.username === 'admin' && l.success)).toBe(true);
  });

  it('refuses bad paging naming the field, and needs sign-in', async () => {
    const res = await call(t.app, 'GET', '/api/profile/login-logs?pageSize=0', { token: a.adminToken });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].field).toBe('pageSize');
    expect((await call(t.app, 'GET', '/api/profile/login-logs')).statusCode).toBe(401);
  });
});
