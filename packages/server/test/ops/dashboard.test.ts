import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationLogs } from '../../src/modules/system/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions, type TenantFixture, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;

/** Operation-log rows written as setup: the recorder itself is the system module's to test. */
async function operations(tenantId: number | null, count: number, at: Date) {
  const rows = Array.from({ length: count }, (_, i) => ({
    tenantId,
    username: 'someone',
    module: 'system',
    operation: 'system.dict.create',
    method: 'POST',
    path: '/api/dict-types',
    statusCode: 200,
    ip: '127.0.0.1',
    durationMs: 3,
    requestId: `setup-${tenantId}-${i}-${at.getTime()}`,
    createdAt: at,
  }));
  await t.database.db.insert(operationLogs).values(rows);
}

beforeAll(async () => {
  t = await createTestApp();
  // Tenant A: its administrator and one more user, each signed in once.
  a = await createTenant(t);
  await createUserWithPermissions(t, [], { tenantId: a.tenantId, tenantCode: a.code });
  // Tenant B: busier, so any leak across tenants shows in A's numbers.
  b = await createTenant(t);
  for (let i = 0; i < 2; i++) await createUserWithPermissions(t, [], { tenantId: b.tenantId, tenantCode: b.code });
  const now = t.app.ctx.clock();
  await operations(a.tenantId, 2, now);
  await operations(a.tenantId, 1, new Date(now.getTime() - 26 * 3600 * 1000)); // yesterday
  await operations(b.tenantId, 5, now);
  await operations(null, 4, now);
});
afterAll(async () => t?.close());

const stats = async (token: string, tenantId?: number) => {
  const res = await call(t.app, 'GET', '/api/dashboard/stats', { token, ...(tenantId ? { tenantId } : {}) });
  expect(res.statusCode).toBe(200);
  return res.json().data;
};

describe('GET /api/dashboard/stats', () => {
  it("counts the caller's tenant only", async () => {
    expect(await stats(a.adminToken)).toEqual({ users: 2, onlineUsers: 2, todayLogins: 2, todayOperations: 2 });
    expect(await stats(b.adminToken)).toEqual({ users: 3, onlineUsers: 3, todayLogins: 3, todayOperations: 5 });
  });

  it("does not move when another tenant's numbers do", async () => {
    const before = await stats(a.adminToken);
    await login(t.app, 'admin', USER_PASSWORD, b.code);
    await createUserWithPermissions(t, [], { tenantId: b.tenantId, tenantCode: b.code });
    await operations(b.tenantId, 3, t.app.ctx.clock());
    expect(await stats(a.adminToken)).toEqual(before);
    expect(await stats(b.adminToken)).toMatchObject({ users: 4, todayLogins: 5, todayOperations: 8 });
  });

  it('gives the super administrator the numbers of the tenant named by X-Tenant-Id', async () => {
    expect(await stats(t.adminToken, a.tenantId)).toEqual(await stats(a.adminToken));
  });

  it('answers 403 without dashboard:stats:view', async () => {
    const user = await createUserWithPermissions(t, ['monitor:server:view'], {
      tenantId: a.tenantId,
      tenantCode: a.code,
    });
    const res = await call(t.app, 'GET', '/api/dashboard/stats', { token: user.token });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'auth.permission_denied' });
  });

  it('answers 401 without a token', async () => {
    expect((await call(t.app, 'GET', '/api/dashboard/stats')).statusCode).toBe(401);
  });
});
