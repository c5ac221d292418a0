import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { menus, roleMenus, roles, userRoles } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { allTenantPermissions, type TenantFixture, twoTenants, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let noPerms: { token: string };
let menuByName: Map<string, number>;
let personal: number[];
const menuId = (name: string): number => one([menuByName.get(name)].filter((id) => id !== undefined));
beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody: noPerms } = await twoTenants(t));
  const all = await t.database.db.select().from(menus);
  menuByName = new Map(all.map((m) => [m.name, m.id]));
  personal = all.filter((m) => m.hidden && m.permission === null).map((m) => m.id);
});
afterAll(async () => t?.close());

const db = () => t.database.db;
const uniq = (p: string) => `${p}-${randomBytes(3).toString('hex')}`;
/** The single row a query must return. */
function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row');
  return row;
}

async function createRole(body: Record<string, unknown> = {}, token = t.demoAdminToken) {
  const res = await call(t.app, 'POST', '/api/roles', { token, body: { code: uniq('role'), name: 'A role', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; code: string; permissions: string[]; menuIds: number[] };
}

async function roleRow(id: number) {
  const [row] = await db().select().from(roles).where(eq(roles.id, id));
  return row;
}

/** A demo user created through the API holding `roleId`, signed in. */
async function userWithRole(roleId: number) {
  const username = uniq('holder');
  const res = await call(t.app, 'POST', '/api/users', {
    token: t.demoAdminToken,
    body: { username, password: USER_PASSWORD, nickname: 'Holder', roleIds: [roleId] },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { userId: res.json().data.id as number, token: await login(t.app, username, USER_PASSWORD, 'demo') };
}

describe('GET /api/roles', () => {
  it('lists my tenant’s roles, the seeded tenant-admin among them', async () => {
    const res = await call(t.app, 'GET', '/api/roles?pageSize=200', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const list = res.json().data.list as { code: string; tenantId: number; permissions: string[] }[];
    const admin = list.find((r) => r.code === 'tenant-admin');
    expect(admin?.permissions).toEqual(allTenantPermissions(t).sort());
    expect(list.every((r) => r.tenantId === t.demoTenantId)).toBe(true);
  });

  it('filters by keyword and status', async () => {
    const tag = uniq('kw');
    const a = await createRole({ code: `${tag}-a`, status: 'disabled' });
    await createRole({ name: `Named ${tag}` });
    const res = await call(t.app, 'GET', `/api/roles?keyword=${tag}&status=disabled`, { token: t.demoAdminToken });
    expect(res.json().data.list.map((r: { id: number }) => r.id)).toEqual([a.id]);
    const all = await call(t.app, 'GET', `/api/roles?keyword=${tag}`, { token: t.demoAdminToken });
    expect(all.json().data.total).toBe(2);
  });

  it('rejects a bad filter', async () => {
    expectError(
      await call(t.app, 'GET', '/api/roles?status=maybe', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'status',
    );
  });

  it('needs system:role:list', async () => {
    expectError(await call(t.app, 'GET', '/api/roles', { token: noPerms.token }), 403, 'auth.permission_denied');
  });

  it('never shows another tenant’s roles', async () => {
    const mine = await createRole();
    const res = await call(t.app, 'GET', '/api/roles?pageSize=200', { token: other.adminToken });
    expect(res.json().data.list.map((r: { id: number }) => r.id)).not.toContain(mine.id);
  });
});

describe('GET /api/roles/:id', () => {
  it('returns the role with its menu ids', async () => {
    const r = await createRole({ menuIds: [menuByName.get('Users')] });
    const res = await call(t.app, 'GET', `/api/roles/${r.id}`, { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.menuIds).toEqual([menuId('Users'), ...personal].sort((a, b) => a - b));
  });

  it('needs system:role:list', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'GET', `/api/roles/${r.id}`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
  });

  it('answers 404 for a role of another tenant', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'GET', `/api/roles/${r.id}`, { token: other.adminToken }),
      404,
      'identity.role_not_found',
    );
  });
});

describe('POST /api/roles', () => {
  it('creates a role with permissions and menus; every role gets the personal pages', async () => {
    const r = await createRole({
      permissions: ['system:user:list', 'system:dept:list'],
      menuIds: [menuByName.get('Roles')],
      sort: 5,
      remark: 'r',
    });
    expect(r.permissions).toEqual(['system:user:list', 'system:dept:list']);
    expect(personal).toHaveLength(2);
    expect(r.menuIds).toEqual(expect.arrayContaining([menuByName.get('Roles'), ...personal]));
    expect(await db().select().from(roleMenus).where(eq(roleMenus.roleId, r.id))).toHaveLength(3);
  });

  it('refuses an undeclared code naming permissions.N, and writes nothing', async () => {
    const code = uniq('bad');
    const res = await call(t.app, 'POST', '/api/roles', {
      token: t.demoAdminToken,
      body: { code, name: 'Bad', permissions: ['system:user:list', 'system:nothing:here'] },
    });
    expectError(res, 400, 'request.validation_failed', 'permissions.1');
    expect(await db().select().from(roles).where(eq(roles.code, code))).toHaveLength(0);
  });

  it('refuses platform codes and platform menus for a tenant role', async () => {
    const code = uniq('plat');
    const res = await call(t.app, 'POST', '/api/roles', {
      token: t.demoAdminToken,
      body: {
        code,
        name: 'Plat',
        permissions: ['platform:tenant:list'],
        menuIds: [menuByName.get('Users'), menuByName.get('Tenants'), 999999],
      },
    });
    expectError(res, 400, 'request.validation_failed', 'permissions.0');
    const fields = res.json().details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['menuIds.1', 'menuIds.2']));
    expect(fields).not.toContain('menuIds.0');
    expect(await db().select().from(roles).where(eq(roles.code, code))).toHaveLength(0);
  });

  it('lets a platform role hold platform codes', async () => {
    const r = await createRole(
      { permissions: ['platform:tenant:list'], menuIds: [menuByName.get('Tenants')] },
      t.adminToken,
    );
    expect((await roleRow(r.id))?.tenantId).toBeNull();
  });

  it('rejects a malformed code and missing name', async () => {
    const res = await call(t.app, 'POST', '/api/roles', { token: t.demoAdminToken, body: { code: 'has space' } });
    expectError(res, 400, 'request.validation_failed', 'code');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('name');
  });

  it('answers 409 naming code when it is taken in my tenant', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'POST', '/api/roles', { token: t.demoAdminToken, body: { code: r.code, name: 'Again' } }),
      409,
      'identity.role_exists',
      'code',
    );
    await createRole({ code: r.code }, other.adminToken);
  });

  it('needs system:role:create', async () => {
    const code = uniq('x');
    expectError(
      await call(t.app, 'POST', '/api/roles', { token: noPerms.token, body: { code, name: 'X' } }),
      403,
      'auth.permission_denied',
    );
    expect(await db().select().from(roles).where(eq(roles.code, code))).toHaveLength(0);
  });
});

describe('PUT /api/roles/:id', () => {
  it('a permission change reaches an already signed-in holder at the next request', async () => {
    const r = await createRole();
    const holder = await userWithRole(r.id);
    expectError(await call(t.app, 'GET', '/api/users', { token: holder.token }), 403, 'auth.permission_denied');

    const grant = await call(t.app, 'PUT', `/api/roles/${r.id}`, {
      token: t.demoAdminToken,
      body: { permissions: ['system:user:list'] },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    expect((await call(t.app, 'GET', '/api/users', { token: holder.token })).statusCode).toBe(200);

    await call(t.app, 'PUT', `/api/roles/${r.id}`, { token: t.demoAdminToken, body: { permissions: [] } });
    expectError(await call(t.app, 'GET', '/api/users', { token: holder.token }), 403, 'auth.permission_denied');
  });

  it('menus bound to a role grant their codes; disabling the role takes them away', async () => {
    const r = await createRole();
    const holder = await userWithRole(r.id);
    await call(t.app, 'PUT', `/api/roles/${r.id}`, {
      token: t.demoAdminToken,
      body: { menuIds: [menuByName.get('Roles')] },
    });
    expect((await call(t.app, 'GET', '/api/roles', { token: holder.token })).statusCode).toBe(200);
    await call(t.app, 'PUT', `/api/roles/${r.id}`, { token: t.demoAdminToken, body: { status: 'disabled' } });
    expect((await call(t.app, 'GET', '/api/roles', { token: holder.token })).statusCode).toBe(403);
  });

  it('rejects bad fields and leaves the role unchanged', async () => {
    const r = await createRole({ name: 'Before', permissions: ['system:user:list'] });
    expectError(
      await call(t.app, 'PUT', `/api/roles/${r.id}`, {
        token: t.demoAdminToken,
        body: { name: 'After', permissions: ['platform:menu:create'] },
      }),
      400,
      'request.validation_failed',
      'permissions.0',
    );
    expectError(
      await call(t.app, 'PUT', `/api/roles/${r.id}`, { token: t.demoAdminToken, body: { name: 'After', sort: -1 } }),
      400,
      'request.validation_failed',
      'sort',
    );
    expect(await roleRow(r.id)).toMatchObject({ name: 'Before', permissions: ['system:user:list'] });
  });

  it('answers 409 when renaming to a taken code', async () => {
    const a = await createRole();
    const b = await createRole();
    expectError(
      await call(t.app, 'PUT', `/api/roles/${b.id}`, { token: t.demoAdminToken, body: { code: a.code } }),
      409,
      'identity.role_exists',
      'code',
    );
  });

  it('needs system:role:update', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'PUT', `/api/roles/${r.id}`, { token: noPerms.token, body: { name: 'x' } }),
      403,
      'auth.permission_denied',
    );
  });

  it('answers 404 for a role of another tenant and changes nothing', async () => {
    const r = await createRole({ name: 'Mine' });
    expectError(
      await call(t.app, 'PUT', `/api/roles/${r.id}`, {
        token: other.adminToken,
        body: { name: 'Stolen', permissions: ['system:user:list'] },
      }),
      404,
      'identity.role_not_found',
    );
    expect(await roleRow(r.id)).toMatchObject({ name: 'Mine', permissions: [] });
  });
});

describe('DELETE /api/roles/:id', () => {
  it('deletes a held role; holders lose its permissions at once', async () => {
    const r = await createRole({ permissions: ['system:user:list'] });
    const holder = await userWithRole(r.id);
    expect((await call(t.app, 'GET', '/api/users', { token: holder.token })).statusCode).toBe(200);
    const res = await call(t.app, 'DELETE', `/api/roles/${r.id}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ affected: [r.id] });
    expect(await roleRow(r.id)).toBeUndefined();
    expect(await db().select().from(userRoles).where(eq(userRoles.roleId, r.id))).toHaveLength(0);
    expectError(await call(t.app, 'GET', '/api/users', { token: holder.token }), 403, 'auth.permission_denied');
  });

  it('rejects a malformed id', async () => {
    expectError(
      await call(t.app, 'DELETE', '/api/roles/-3', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('needs system:role:delete', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'DELETE', `/api/roles/${r.id}`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
    expect(await roleRow(r.id)).toBeDefined();
  });

  it('answers 404 for a role of another tenant and keeps it', async () => {
    const r = await createRole();
    expectError(
      await call(t.app, 'DELETE', `/api/roles/${r.id}`, { token: other.adminToken }),
      404,
      'identity.role_not_found',
    );
    expect(await roleRow(r.id)).toBeDefined();
  });
});

describe('GET /api/permissions', () => {
  it('groups the declared codes by family; a tenant sees no platform codes', async () => {
    const res = await call(t.app, 'GET', '/api/permissions', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const groups = res.json().data as { group: string; codes: string[] }[];
    const codes = groups.flatMap((g) => g.codes);
    expect(codes.sort()).toEqual(allTenantPermissions(t).sort());
    expect(groups.find((g) => g.group === 'system')?.codes).toContain('system:user:create');
    for (const g of groups) expect(g.codes.every((c) => c.startsWith(`${g.group}:`))).toBe(true);
    expect(groups.map((g) => g.group)).not.toContain('platform');
  });

  it('shows the platform codes at platform scope, but not to a super administrator inside a tenant', async () => {
    const platform = (await call(t.app, 'GET', '/api/permissions', { token: t.adminToken })).json().data;
    expect(platform.find((g: { group: string }) => g.group === 'platform').codes).toEqual(
      expect.arrayContaining(['platform:menu:create', 'platform:tenant:create']),
    );
    const inTenant = (
      await call(t.app, 'GET', '/api/permissions', { token: t.adminToken, tenantId: t.demoTenantId })
    ).json().data;
    expect(inTenant.map((g: { group: string }) => g.group)).not.toContain('platform');
  });

  it('needs system:role:list', async () => {
    expectError(await call(t.app, 'GET', '/api/permissions', { token: noPerms.token }), 403, 'auth.permission_denied');
  });
});
