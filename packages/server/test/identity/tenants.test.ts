import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles, users } from '../../src/modules/identity/tables.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import {
  allTenantPermissions,
  createTenant,
  createUserWithPermissions,
  type TenantFixture,
} from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const db = () => t.database.db;
const code = () => `t-${randomBytes(3).toString('hex')}`;
const ADMIN_PW = 'Tenant#Admin2026';

async function createViaApi(body: Record<string, unknown> = {}) {
  const c = code();
  const res = await call(t.app, 'POST', '/api/tenants', {
    token: t.adminToken,
    body: { code: c, name: `Tenant ${c}`, adminUsername: 'boss', adminPassword: ADMIN_PW, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; code: string; admin: { id: number; username: string; roleId: number } };
}

async function tenantRow(id: number) {
  const [row] = await db().select().from(tenants).where(eq(tenants.id, id));
  return row;
}

/** Tokens that must never reach tenant administration: tenant roles, tenant scope. */
async function refusals(method: 'GET' | 'POST' | 'PUT', url: string, permission: string, body?: unknown) {
  expectError(await call(t.app, method, url, { token: t.demoAdminToken, body }), 403, 'auth.permission_denied');
  const granted = await createUserWithPermissions(t, [permission]);
  expectError(await call(t.app, method, url, { token: granted.token, body }), 403, 'auth.platform_scope_required');
  expectError(
    await call(t.app, method, url, { token: t.adminToken, tenantId: t.demoTenantId, body }),
    403,
    'auth.platform_scope_required',
  );
}

describe('GET /api/tenants', () => {
  it('lists tenants at platform scope, filtered by keyword and status', async () => {
    const res = await call(t.app, 'GET', '/api/tenants?pageSize=200', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.list.map((x: { code: string }) => x.code)).toEqual(
      expect.arrayContaining(['demo', other.code]),
    );
    const a = await createViaApi({ name: 'Acme Widgets' });
    await call(t.app, 'PUT', `/api/tenants/${a.id}`, { token: t.adminToken, body: { status: 'disabled' } });
    const found = await call(t.app, 'GET', '/api/tenants?keyword=acme&status=disabled', { token: t.adminToken });
    expect(found.json().data).toMatchObject({
      total: 1,
      list: [{ id: a.id, name: 'Acme Widgets', status: 'disabled' }],
    });
  });

  it('rejects a bad filter', async () => {
    expectError(
      await call(t.app, 'GET', '/api/tenants?page=0', { token: t.adminToken }),
      400,
      'request.validation_failed',
      'page',
    );
  });

  it('is refused to tenant users and tenant scope', async () => {
    await refusals('GET', '/api/tenants', 'platform:tenant:list');
  });
});

describe('GET /api/tenants/:id', () => {
  it('returns one tenant', async () => {
    const res = await call(t.app, 'GET', `/api/tenants/${other.tenantId}`, { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: other.tenantId, code: other.code, status: 'active', expiresAt: null });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectError(
      await call(t.app, 'GET', '/api/tenants/999999', { token: t.adminToken }),
      404,
      'identity.tenant_not_found',
    );
    expectError(
      await call(t.app, 'GET', '/api/tenants/zero', { token: t.adminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('is refused to tenant users, even for their own tenant', async () => {
    await refusals('GET', `/api/tenants/${t.demoTenantId}`, 'platform:tenant:list');
    expectError(
      await call(t.app, 'GET', `/api/tenants/${other.tenantId}`, { token: other.adminToken }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('POST /api/tenants', () => {
  it('creates the tenant, its tenant-admin role and its administrator, who can work at once', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000 * 30).toISOString();
    const created = await createViaApi({ expiresAt, remark: 'new customer' });
    expect(created).toMatchObject({ status: 'active', expiresAt, remark: 'new customer', admin: { username: 'boss' } });
    const [role] = await db().select().from(roles).where(eq(roles.id, created.admin.roleId));
    expect(role).toMatchObject({
      tenantId: created.id,
      code: 'tenant-admin',
      permissions: allTenantPermissions(t).sort(),
    });

    const token = await login(t.app, 'boss', ADMIN_PW, created.code);
    const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json().data;
    expect(me.tenant).toMatchObject({ id: created.id, code: created.code });
    expect(me.permissions).toEqual(expect.arrayContaining(['system:user:create', 'system:role:update']));
    expect(me.permissions.some((p: string) => p.startsWith('platform:'))).toBe(false);
    expect(me.menus.map((m: { name: string }) => m.name)).toEqual([
      'System',
      'Messaging',
      'Monitor',
      'Drive',
      'Payment',
      'Open Platform',
      'Profile',
      'Notification center',
    ]);
    const list = await call(t.app, 'GET', '/api/users', { token });
    expect(list.json().data.list.map((u: { username: string }) => u.username)).toEqual(['boss']);
  });

  it('rejects bad fields naming each, writing nothing', async () => {
    const res = await call(t.app, 'POST', '/api/tenants', {
      token: t.adminToken,
      body: { code: 'Bad Code', name: '', adminUsername: 'boss', adminPassword: ADMIN_PW, expiresAt: 'tomorrow' },
    });
    expectError(res, 400, 'request.validation_failed', 'code');
    expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['name', 'expiresAt']),
    );
    expect(await db().select().from(tenants).where(eq(tenants.code, 'Bad Code'))).toHaveLength(0);
  });

  it('refuses a short administrator password, writing nothing', async () => {
    const c = code();
    const res = await call(t.app, 'POST', '/api/tenants', {
      token: t.adminToken,
      body: { code: c, name: 'Short', adminUsername: 'boss', adminPassword: 'short' },
    });
    expectError(res, 400, 'request.validation_failed', 'adminPassword');
    expect(await db().select().from(tenants).where(eq(tenants.code, c))).toHaveLength(0);
  });

  it('answers 409 naming code for a taken code, and leaves no half-made tenant', async () => {
    const usersBefore = await db().select().from(users);
    expectError(
      await call(t.app, 'POST', '/api/tenants', {
        token: t.adminToken,
        body: { code: 'demo', name: 'Again', adminUsername: 'someone-new', adminPassword: ADMIN_PW },
      }),
      409,
      'identity.tenant_exists',
      'code',
    );
    expect(await db().select().from(users)).toHaveLength(usersBefore.length);
  });

  it('is refused to tenant users and tenant scope', async () => {
    const c = code();
    await refusals('POST', '/api/tenants', 'platform:tenant:create', {
      code: c,
      name: 'X',
      adminUsername: 'boss',
      adminPassword: ADMIN_PW,
    });
    expect(await db().select().from(tenants).where(eq(tenants.code, c))).toHaveLength(0);
  });
});

describe('PUT /api/tenants/:id', () => {
  it('changes name, remark and expiry', async () => {
    const a = await createViaApi();
    const res = await call(t.app, 'PUT', `/api/tenants/${a.id}`, {
      token: t.adminToken,
      body: { name: 'Renamed', remark: 'vip', expiresAt: '2030-01-01T00:00:00.000Z' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      id: a.id,
      code: a.code,
      name: 'Renamed',
      remark: 'vip',
      expiresAt: '2030-01-01T00:00:00.000Z',
    });
    const cleared = await call(t.app, 'PUT', `/api/tenants/${a.id}`, {
      token: t.adminToken,
      body: { expiresAt: null },
    });
    expect(cleared.json().data.expiresAt).toBeNull();
  });

  it('disabling a tenant ends its users’ sessions and sign-ins; enabling restores sign-in', async () => {
    const a = await createViaApi();
    const token = await login(t.app, 'boss', ADMIN_PW, a.code);
    expect((await call(t.app, 'GET', '/api/users', { token })).statusCode).toBe(200);
    const res = await call(t.app, 'PUT', `/api/tenants/${a.id}`, { token: t.adminToken, body: { status: 'disabled' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(t.app, 'GET', '/api/users', { token })).statusCode).toBe(401);
    const refused = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'boss', password: ADMIN_PW, tenantCode: a.code },
    });
    expectError(refused, 403, 'auth.tenant_unavailable');
    await call(t.app, 'PUT', `/api/tenants/${a.id}`, { token: t.adminToken, body: { status: 'active' } });
    await login(t.app, 'boss', ADMIN_PW, a.code);
  });

  it('a past expiry blocks the tenant’s signed-in users at their next request', async () => {
    const a = await createViaApi();
    const token = await login(t.app, 'boss', ADMIN_PW, a.code);
    await call(t.app, 'PUT', `/api/tenants/${a.id}`, {
      token: t.adminToken,
      body: { expiresAt: '2000-01-01T00:00:00.000Z' },
    });
    expect((await call(t.app, 'GET', '/api/users', { token })).statusCode).toBe(401);
  });

  it('rejects bad fields and leaves the tenant unchanged', async () => {
    const a = await createViaApi();
    expectError(
      await call(t.app, 'PUT', `/api/tenants/${a.id}`, {
        token: t.adminToken,
        body: { name: 'Changed', status: 'paused' },
      }),
      400,
      'request.validation_failed',
      'status',
    );
    expect(await tenantRow(a.id)).toMatchObject({ name: `Tenant ${a.code}`, status: 'active' });
  });

  it('answers 404 for an unknown tenant', async () => {
    expectError(
      await call(t.app, 'PUT', '/api/tenants/999999', { token: t.adminToken, body: { name: 'X' } }),
      404,
      'identity.tenant_not_found',
    );
  });

  it('is refused to tenant users and tenant scope; the tenant stays as it was', async () => {
    await refusals('PUT', `/api/tenants/${other.tenantId}`, 'platform:tenant:update', { status: 'disabled' });
    expect((await tenantRow(other.tenantId))?.status).toBe('active');
    expect((await call(t.app, 'GET', '/api/users', { token: other.adminToken })).statusCode).toBe(200);
  });

  it('offers no way to delete a tenant', async () => {
    expectError(
      await call(t.app, 'DELETE', `/api/tenants/${other.tenantId}`, { token: t.adminToken }),
      404,
      'route.not_found',
    );
  });
});
