import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  departments,
  positions,
  roles,
  userGroupMembers,
  userGroups,
  userRoles,
  users,
} from '../../src/modules/identity/tables.ts';
import { hashPassword } from '../../src/platform/crypto/passwords.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants, USER_PASSWORD } from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let noPerms: { token: string };
beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody: noPerms } = await twoTenants(t));
});
afterAll(async () => t?.close());

const db = () => t.database.db;
const uniq = (p: string) => `${p}${randomBytes(3).toString('hex')}`;
/** The single row a query must return. */
function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row');
  return row;
}

async function createUser(body: Record<string, unknown> = {}, token = t.demoAdminToken) {
  const res = await call(t.app, 'POST', '/api/users', {
    token,
    body: { username: uniq('user'), password: USER_PASSWORD, nickname: 'Someone', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; username: string; roleIds: number[] };
}

async function userRow(id: number) {
  const [row] = await db().select().from(users).where(eq(users.id, id));
  return row;
}

/** A platform (tenant-less) user who is not a super administrator. */
async function platformUser(permissions: string[]) {
  const username = uniq('plat');
  const u = one(
    await db()
      .insert(users)
      .values({
        tenantId: PLATFORM_TENANT_ID,
        username,
        passwordHash: await hashPassword(USER_PASSWORD),
        nickname: username,
      })
      .returning(),
  );
  const r = one(
    await db()
      .insert(roles)
      .values({ tenantId: PLATFORM_TENANT_ID, code: `r-${username}`, name: username, permissions })
      .returning(),
  );
  await db().insert(userRoles).values({ tenantId: PLATFORM_TENANT_ID, userId: u.id, roleId: r.id });
  return { userId: u.id, token: await login(t.app, username, USER_PASSWORD) };
}

describe('GET /api/users', () => {
  it('lists the users of my tenant without password hashes, with lock and sign-in fields', async () => {
    const res = await call(t.app, 'GET', '/api/users?pageSize=200', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const { list, total, page, pageSize } = res.json().data;
    expect({ page, pageSize }).toEqual({ page: 1, pageSize: 200 });
    expect(total).toBe(list.length);
    const admin = list.find((u: { username: string }) => u.username === 'admin');
    expect(admin).toMatchObject({ tenantId: t.demoTenantId, isSuper: false, failedLoginCount: 0, lockedUntil: null });
    expect(admin.lastLoginAt).toMatch(/Z$/);
    expect(res.body).not.toMatch(/password/i);
    expect(list.every((u: { tenantId: number }) => u.tenantId === t.demoTenantId)).toBe(true);
  });

  it('filters by keyword, status, role and department (with sub-departments)', async () => {
    const root = one(await db().insert(departments).values({ tenantId: t.demoTenantId, name: 'Root' }).returning());
    const child = one(
      await db()
        .insert(departments)
        .values({ tenantId: t.demoTenantId, parentId: root.id, ancestorIds: [root.id], name: 'Child' })
        .returning(),
    );
    const grandchild = one(
      await db()
        .insert(departments)
        .values({ tenantId: t.demoTenantId, parentId: child.id, ancestorIds: [root.id, child.id], name: 'Grandchild' })
        .returning(),
    );
    const role = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('filter'), name: 'Filter' })
        .returning(),
    );
    const tag = uniq('kw');
    const a = await createUser({ nickname: `${tag} A`, departmentId: root.id, roleIds: [role.id] });
    const b = await createUser({ nickname: `${tag} B`, departmentId: grandchild.id, status: 'disabled' });
    const c = await createUser({ email: `${tag}@example.com`, departmentId: child.id });

    const ids = async (query: string) => {
      const res = await call(t.app, 'GET', `/api/users?${query}`, { token: t.demoAdminToken });
      expect(res.statusCode, res.body).toBe(200);
      return res
        .json()
        .data.list.map((u: { id: number }) => u.id)
        .sort();
    };
    expect(await ids(`keyword=${tag.toUpperCase()}`)).toEqual([a.id, b.id, c.id]);
    expect(await ids(`keyword=${tag}&status=disabled`)).toEqual([b.id]);
    expect(await ids(`roleId=${role.id}`)).toEqual([a.id]);
    expect(await ids(`departmentId=${root.id}`)).toEqual([a.id]);
    expect(await ids(`departmentId=${root.id}&includeSubDepartments=true`)).toEqual([a.id, b.id, c.id]);
    expect(await ids(`departmentId=${child.id}&includeSubDepartments=true`)).toEqual([b.id, c.id]);
    expect(await ids('keyword=%25')).toEqual([]);
  });

  it('rejects bad query values naming the field', async () => {
    expectError(
      await call(t.app, 'GET', '/api/users?pageSize=500', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'pageSize',
    );
    expectError(
      await call(t.app, 'GET', '/api/users?status=gone', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'status',
    );
  });

  it('needs system:user:list', async () => {
    expectError(await call(t.app, 'GET', '/api/users', { token: noPerms.token }), 403, 'auth.permission_denied');
  });

  it('shows another tenant nothing of mine; the platform scope shows platform users', async () => {
    const mine = await createUser();
    const res = await call(t.app, 'GET', '/api/users?pageSize=200', { token: other.adminToken });
    expect(res.json().data.list.map((u: { id: number }) => u.id)).not.toContain(mine.id);
    const platform = await call(t.app, 'GET', '/api/users', { token: t.adminToken });
    expect(platform.json().data.list.every((u: { tenantId: number | null }) => u.tenantId === null)).toBe(true);
    const inDemo = await call(t.app, 'GET', '/api/users?pageSize=200', {
      token: t.adminToken,
      tenantId: t.demoTenantId,
    });
    expect(inDemo.json().data.list.map((u: { id: number }) => u.id)).toContain(mine.id);
  });
});

describe('GET /api/users/:id', () => {
  it('returns the user with role, position and group ids', async () => {
    const pos = one(
      await db()
        .insert(positions)
        .values({ tenantId: t.demoTenantId, code: uniq('p'), name: 'Dev' })
        .returning(),
    );
    const role = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('r'), name: 'R' })
        .returning(),
    );
    const u = await createUser({ roleIds: [role.id], positionIds: [pos.id] });
    const group = one(
      await db()
        .insert(userGroups)
        .values({ tenantId: t.demoTenantId, name: uniq('g') })
        .returning(),
    );
    await db().insert(userGroupMembers).values({ tenantId: t.demoTenantId, groupId: group.id, userId: u.id });
    const res = await call(t.app, 'GET', `/api/users/${u.id}`, { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: u.id,
      roleIds: [role.id],
      positionIds: [pos.id],
      groupIds: [group.id],
    });
    expect(res.body).not.toMatch(/password/i);
  });

  it('rejects a malformed id', async () => {
    expectError(
      await call(t.app, 'GET', '/api/users/abc', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('needs system:user:list', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'GET', `/api/users/${u.id}`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
  });

  it('answers 404 for a user of another tenant', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'GET', `/api/users/${u.id}`, { token: other.adminToken }),
      404,
      'identity.user_not_found',
    );
  });
});

describe('POST /api/users', () => {
  it('creates a user who can sign in, with roles and positions', async () => {
    const role = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('r'), name: 'R' })
        .returning(),
    );
    const username = uniq('new');
    const res = await call(t.app, 'POST', '/api/users', {
      token: t.demoAdminToken,
      body: {
        username,
        password: 'Fresh#Pass2026',
        nickname: 'New',
        email: 'new@example.com',
        phone: '+1 555 0100',
        roleIds: [role.id],
        remark: 'hi',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      username,
      tenantId: t.demoTenantId,
      email: 'new@example.com',
      roleIds: [role.id],
      status: 'active',
    });
    expect(res.body).not.toMatch(/password/i);
    await login(t.app, username, 'Fresh#Pass2026', 'demo');
  });

  it('rejects bad fields naming each, and writes nothing', async () => {
    const username = uniq('bad');
    const res = await call(t.app, 'POST', '/api/users', {
      token: t.demoAdminToken,
      body: { username, password: USER_PASSWORD, nickname: '', email: 'not-an-email' },
    });
    expectError(res, 400, 'request.validation_failed', 'email');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('nickname');
    expect(await db().select().from(users).where(eq(users.username, username))).toHaveLength(0);
  });

  it('enforces the tenant’s minimum password length setting', async () => {
    await t.app.ctx.settings.update('security', t.demoTenantId, { passwordMinLength: 14 }, null);
    try {
      const username = uniq('short');
      const res = await call(t.app, 'POST', '/api/users', {
        token: t.demoAdminToken,
        body: { username, password: 'Twelve#Chars', nickname: 'S' },
      });
      expectError(res, 400, 'request.validation_failed', 'password');
      expect(await db().select().from(users).where(eq(users.username, username))).toHaveLength(0);
      await createUser({ password: 'Fourteen#Chars' });
    } finally {
      await t.app.ctx.settings.update('security', t.demoTenantId, { passwordMinLength: 8 }, null);
    }
  });

  it('refuses roles, positions and departments that are not in my tenant, naming the field', async () => {
    const foreignRole = one(
      await db()
        .insert(roles)
        .values({ tenantId: other.tenantId, code: uniq('r'), name: 'Foreign' })
        .returning(),
    );
    const foreignDept = one(
      await db().insert(departments).values({ tenantId: other.tenantId, name: 'Foreign' }).returning(),
    );
    const ownRole = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('r'), name: 'Own' })
        .returning(),
    );
    const username = uniq('refs');
    const res = await call(t.app, 'POST', '/api/users', {
      token: t.demoAdminToken,
      body: {
        username,
        password: USER_PASSWORD,
        nickname: 'R',
        roleIds: [ownRole.id, foreignRole.id],
        departmentId: foreignDept.id,
        positionIds: [999999],
      },
    });
    expectError(res, 400, 'request.validation_failed', 'roleIds.1');
    const fields = res.json().details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['departmentId', 'positionIds.0']));
    expect(fields).not.toContain('roleIds.0');
    expect(await db().select().from(users).where(eq(users.username, username))).toHaveLength(0);
  });

  it('answers 409 naming username when it is taken in my tenant, but not across tenants', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'POST', '/api/users', {
        token: t.demoAdminToken,
        body: { username: u.username, password: USER_PASSWORD, nickname: 'Dup' },
      }),
      409,
      'identity.user_exists',
      'username',
    );
    const elsewhere = await call(t.app, 'POST', '/api/users', {
      token: other.adminToken,
      body: { username: u.username, password: USER_PASSWORD, nickname: 'Same name, other tenant' },
    });
    expect(elsewhere.statusCode).toBe(201);
  });

  it('needs system:user:create', async () => {
    const lister = await createUserWithPermissions(t, ['system:user:list']);
    const username = uniq('x');
    const res = await call(t.app, 'POST', '/api/users', {
      token: lister.token,
      body: { username, password: USER_PASSWORD, nickname: 'X' },
    });
    expectError(res, 403, 'auth.permission_denied');
    expect(await db().select().from(users).where(eq(users.username, username))).toHaveLength(0);
  });
});

describe('PUT /api/users/:id', () => {
  it('changes fields and replaces the role set', async () => {
    const r1 = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('r'), name: 'R1' })
        .returning(),
    );
    const r2 = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: uniq('r'), name: 'R2' })
        .returning(),
    );
    const u = await createUser({ roleIds: [r1.id] });
    const res = await call(t.app, 'PUT', `/api/users/${u.id}`, {
      token: t.demoAdminToken,
      body: { nickname: 'Renamed', email: null, roleIds: [r2.id] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ nickname: 'Renamed', email: null, roleIds: [r2.id] });
  });

  it('rejects a bad field and leaves the user unchanged', async () => {
    const u = await createUser({ nickname: 'Before' });
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.id}`, {
        token: t.demoAdminToken,
        body: { nickname: 'After', email: 'nope' },
      }),
      400,
      'request.validation_failed',
      'email',
    );
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.id}`, {
        token: t.demoAdminToken,
        body: { nickname: 'After', roleIds: [999999] },
      }),
      400,
      'request.validation_failed',
      'roleIds.0',
    );
    expect((await userRow(u.id))?.nickname).toBe('Before');
  });

  it('needs system:user:update', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.id}`, { token: noPerms.token, body: { nickname: 'x' } }),
      403,
      'auth.permission_denied',
    );
  });

  it('answers 404 for a user of another tenant and changes nothing', async () => {
    const u = await createUser({ nickname: 'Mine' });
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.id}`, {
        token: other.adminToken,
        body: { nickname: 'Stolen', status: 'disabled' },
      }),
      404,
      'identity.user_not_found',
    );
    expect(await userRow(u.id)).toMatchObject({ nickname: 'Mine', status: 'active' });
  });

  it('disabling a user ends their signed-in session at the next request', async () => {
    const u = await createUserWithPermissions(t, ['system:user:list']);
    expect((await call(t.app, 'GET', '/api/users', { token: u.token })).statusCode).toBe(200);
    const res = await call(t.app, 'PUT', `/api/users/${u.userId}`, {
      token: t.demoAdminToken,
      body: { status: 'disabled' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(t.app, 'GET', '/api/users', { token: u.token })).statusCode).toBe(401);
  });

  it('refuses to disable myself', async () => {
    const me = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user;
    expectError(
      await call(t.app, 'PUT', `/api/users/${me.id}`, { token: t.demoAdminToken, body: { status: 'disabled' } }),
      400,
      'identity.user_is_self',
      'status',
    );
    expect((await userRow(me.id))?.status).toBe('active');
  });

  it('only a super administrator may change a super administrator', async () => {
    const p = await platformUser(['system:user:update', 'system:user:delete', 'system:user:reset-password']);
    const superAdmin = one(await db().select().from(users).where(eq(users.isSuper, true)));
    const calls = [
      call(t.app, 'PUT', `/api/users/${superAdmin.id}`, { token: p.token, body: { status: 'disabled' } }),
      call(t.app, 'DELETE', `/api/users/${superAdmin.id}`, { token: p.token }),
      call(t.app, 'PUT', `/api/users/${superAdmin.id}/reset-password`, {
        token: p.token,
        body: { password: 'Taken#Over2026' },
      }),
    ];
    for (const res of await Promise.all(calls)) expectError(res, 403, 'identity.super_admin_protected');
    expect(await userRow(superAdmin.id)).toMatchObject({ status: 'active', passwordHash: superAdmin.passwordHash });
  });
});

describe('DELETE /api/users/:id', () => {
  it('deletes a user and ends their sessions', async () => {
    const u = await createUserWithPermissions(t, ['system:user:list']);
    const res = await call(t.app, 'DELETE', `/api/users/${u.userId}`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ affected: [u.userId] });
    expect(await userRow(u.userId)).toBeUndefined();
    expect((await call(t.app, 'GET', '/api/users', { token: u.token })).statusCode).toBe(401);
  });

  it('rejects a malformed id', async () => {
    expectError(
      await call(t.app, 'DELETE', '/api/users/0', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('refuses to delete myself', async () => {
    const me = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user;
    expectError(
      await call(t.app, 'DELETE', `/api/users/${me.id}`, { token: t.demoAdminToken }),
      400,
      'identity.user_is_self',
    );
    expect(await userRow(me.id)).toBeDefined();
  });

  it('needs system:user:delete', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'DELETE', `/api/users/${u.id}`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
    expect(await userRow(u.id)).toBeDefined();
  });

  it('answers 404 for a user of another tenant and keeps it', async () => {
    const u = await createUser();
    expectError(
      await call(t.app, 'DELETE', `/api/users/${u.id}`, { token: other.adminToken }),
      404,
      'identity.user_not_found',
    );
    expect(await userRow(u.id)).toBeDefined();
  });
});

describe('DELETE /api/users/batch', () => {
  it('deletes every given user', async () => {
    const a = await createUser();
    const b = await createUser();
    const res = await call(t.app, 'DELETE', '/api/users/batch', {
      token: t.demoAdminToken,
      body: { ids: [b.id, a.id] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ affected: [a.id, b.id] });
    expect(
      await db()
        .select()
        .from(users)
        .where(inArray(users.id, [a.id, b.id])),
    ).toHaveLength(0);
  });

  it('with one id of another tenant answers 404 naming it and deletes nothing', async () => {
    const a = await createUser();
    const foreign = one(await db().select().from(users).where(eq(users.id, other.adminUserId)));
    const res = await call(t.app, 'DELETE', '/api/users/batch', {
      token: t.demoAdminToken,
      body: { ids: [a.id, foreign.id] },
    });
    expectError(res, 404, 'identity.user_not_found');
    expect(res.json().message).toContain(String(foreign.id));
    expect(
      await db()
        .select()
        .from(users)
        .where(inArray(users.id, [a.id, foreign.id])),
    ).toHaveLength(2);
  });

  it('rejects an empty or repeated id list', async () => {
    expectError(
      await call(t.app, 'DELETE', '/api/users/batch', { token: t.demoAdminToken, body: { ids: [] } }),
      400,
      'request.validation_failed',
      'ids',
    );
    const a = await createUser();
    expectError(
      await call(t.app, 'DELETE', '/api/users/batch', { token: t.demoAdminToken, body: { ids: [a.id, a.id] } }),
      400,
      'request.validation_failed',
      'ids',
    );
    expect(await userRow(a.id)).toBeDefined();
  });

  it('refuses a batch that includes myself, deleting nothing', async () => {
    const me = (await call(t.app, 'GET', '/api/auth/me', { token: t.demoAdminToken })).json().data.user;
    const a = await createUser();
    expectError(
      await call(t.app, 'DELETE', '/api/users/batch', { token: t.demoAdminToken, body: { ids: [a.id, me.id] } }),
      400,
      'identity.user_is_self',
      'ids',
    );
    expect(await userRow(a.id)).toBeDefined();
  });

  it('needs system:user:delete', async () => {
    const a = await createUser();
    expectError(
      await call(t.app, 'DELETE', '/api/users/batch', { token: noPerms.token, body: { ids: [a.id] } }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('PUT /api/users/batch-status', () => {
  it('disables several users and ends their sessions; enables them again', async () => {
    const a = await createUserWithPermissions(t, ['system:user:list']);
    const b = await createUserWithPermissions(t, ['system:user:list']);
    const res = await call(t.app, 'PUT', '/api/users/batch-status', {
      token: t.demoAdminToken,
      body: { ids: [a.userId, b.userId], status: 'disabled' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.affected).toEqual([a.userId, b.userId].sort((x, y) => x - y));
    for (const u of [a, b]) {
      expect((await userRow(u.userId))?.status).toBe('disabled');
      expect((await call(t.app, 'GET', '/api/users', { token: u.token })).statusCode).toBe(401);
    }
    const back = await call(t.app, 'PUT', '/api/users/batch-status', {
      token: t.demoAdminToken,
      body: { ids: [a.userId], status: 'active' },
    });
    expect(back.statusCode).toBe(200);
    await login(t.app, a.username, USER_PASSWORD, 'demo');
  });

  it('with an id of another tenant answers 404 and changes nothing', async () => {
    const a = await createUser();
    const res = await call(t.app, 'PUT', '/api/users/batch-status', {
      token: t.demoAdminToken,
      body: { ids: [a.id, other.adminUserId], status: 'disabled' },
    });
    expectError(res, 404, 'identity.user_not_found');
    expect((await userRow(a.id))?.status).toBe('active');
    expect((await userRow(other.adminUserId))?.status).toBe('active');
  });

  it('rejects an unknown status', async () => {
    const a = await createUser();
    expectError(
      await call(t.app, 'PUT', '/api/users/batch-status', {
        token: t.demoAdminToken,
        body: { ids: [a.id], status: 'frozen' },
      }),
      400,
      'request.validation_failed',
      'status',
    );
  });

  it('needs system:user:update', async () => {
    const a = await createUser();
    expectError(
      await call(t.app, 'PUT', '/api/users/batch-status', {
        token: noPerms.token,
        body: { ids: [a.id], status: 'disabled' },
      }),
      403,
      'auth.permission_denied',
    );
    expect((await userRow(a.id))?.status).toBe('active');
  });
});

describe('PUT /api/users/:id/reset-password', () => {
  it('sets the new password and ends the user’s sessions', async () => {
    const u = await createUserWithPermissions(t, ['system:user:list']);
    const res = await call(t.app, 'PUT', `/api/users/${u.userId}/reset-password`, {
      token: t.demoAdminToken,
      body: { password: 'Reset#Pass2026' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await call(t.app, 'GET', '/api/users', { token: u.token })).statusCode).toBe(401);
    await expect(login(t.app, u.username, USER_PASSWORD, 'demo')).rejects.toThrow();
    await login(t.app, u.username, 'Reset#Pass2026', 'demo');
  });

  it('rejects a password below the minimum length and keeps the old one', async () => {
    const u = await createUserWithPermissions(t, []);
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.userId}/reset-password`, {
        token: t.demoAdminToken,
        body: { password: 'short' },
      }),
      400,
      'request.validation_failed',
      'password',
    );
    await login(t.app, u.username, USER_PASSWORD, 'demo');
  });

  it('needs system:user:reset-password', async () => {
    const u = await createUserWithPermissions(t, []);
    const updater = await createUserWithPermissions(t, ['system:user:update']);
    expectError(
      await call(t.app, 'PUT', `/api/users/${u.userId}/reset-password`, {
        token: updater.token,
        body: { password: 'Reset#Pass2026' },
      }),
      403,
      'auth.permission_denied',
    );
  });

  it('answers 404 for a user of another tenant, whose password stays', async () => {
    const before = await userRow(other.adminUserId);
    expectError(
      await call(t.app, 'PUT', `/api/users/${other.adminUserId}/reset-password`, {
        token: t.demoAdminToken,
        body: { password: 'Reset#Pass2026' },
      }),
      404,
      'identity.user_not_found',
    );
    expect((await userRow(other.adminUserId))?.passwordHash).toBe(before?.passwordHash);
  });
});

describe('POST /api/users/:id/unlock', () => {
  const lock = (id: number) =>
    db()
      .update(users)
      .set({ failedLoginCount: 5, lockedUntil: new Date(Date.now() + 3_600_000) })
      .where(eq(users.id, id));

  it('clears the lock; the user can sign in again', async () => {
    const u = await createUserWithPermissions(t, []);
    await lock(u.userId);
    const listed = await call(t.app, 'GET', `/api/users/${u.userId}`, { token: t.demoAdminToken });
    expect(listed.json().data).toMatchObject({ failedLoginCount: 5 });
    expect(listed.json().data.lockedUntil).toMatch(/Z$/);
    const res = await call(t.app, 'POST', `/api/users/${u.userId}/unlock`, { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: u.userId, failedLoginCount: 0, lockedUntil: null });
    await login(t.app, u.username, USER_PASSWORD, 'demo');
  });

  it('rejects a malformed id', async () => {
    expectError(
      await call(t.app, 'POST', '/api/users/x/unlock', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });

  it('needs system:user:unlock', async () => {
    const u = await createUserWithPermissions(t, []);
    await lock(u.userId);
    expectError(
      await call(t.app, 'POST', `/api/users/${u.userId}/unlock`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
    expect((await userRow(u.userId))?.failedLoginCount).toBe(5);
  });

  it('answers 404 for a user of another tenant, who stays locked', async () => {
    const u = await createUserWithPermissions(t, []);
    await lock(u.userId);
    expectError(
      await call(t.app, 'POST', `/api/users/${u.userId}/unlock`, { token: other.adminToken }),
      404,
      'identity.user_not_found',
    );
    expect((await userRow(u.userId))?.lockedUntil).not.toBeNull();
  });
});
