import { randomBytes } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIdentity } from '../../src/modules/identity/index.ts';
import { menus, roleMenus, roles, userRoles, users } from '../../src/modules/identity/tables.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import {
  allTenantPermissions,
  createUserWithPermissions,
  type TenantFixture,
  twoTenants,
  USER_PASSWORD,
} from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let noPerms: { token: string };
let menuByName: Map<string, number>;
beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody: noPerms } = await twoTenants(t));
  menuByName = new Map((await t.database.db.select().from(menus)).map((m) => [m.name, m.id]));
});
afterAll(async () => t?.close());

const db = () => t.database.db;
const uniq = (p: string) => `${p} ${randomBytes(3).toString('hex')}`;
/** The single row a query must return. */
function one<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected a row');
  return row;
}

type Node = { id: number; name: string; type: string; permission: string | null; hidden: boolean; children: Node[] };
const flatten = (nodes: Node[]): Node[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);
const named = (nodes: Node[], name: string): Node => one(nodes.filter((n) => n.name === name));
const menuId = (name: string): number => one([menuByName.get(name)].filter((id) => id !== undefined));

async function createMenu(body: Record<string, unknown>) {
  const res = await call(t.app, 'POST', '/api/menus', { token: t.adminToken, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; parentId: number | null; name: string };
}

async function menuRow(id: number) {
  const [row] = await db().select().from(menus).where(eq(menus.id, id));
  return row;
}

describe('seed', () => {
  it('seeds the console tree with buttons, the platform part and two hidden personal pages', async () => {
    const tree = (await call(t.app, 'GET', '/api/menus', { token: t.adminToken })).json().data as Node[];
    expect(tree.filter((n) => !n.hidden).map((n) => n.name)).toEqual([
      'System',
      'Messaging',
      'Monitor',
      'Drive',
      'Payment',
      'Open Platform',
      'Platform',
    ]);
    const system = named(tree, 'System');
    expect(system.children.map((n) => n.name)).toEqual([
      'Users',
      'Roles',
      'Menus',
      'Departments',
      'Positions',
      'User groups',
      'Dictionaries',
      'System configs',
      'Notices',
      'Files',
      'Storage',
      'Settings',
    ]);
    const usersMenu = named(system.children, 'Users');
    expect(usersMenu.permission).toBe('system:user:list');
    expect(usersMenu.children.map((b) => b.permission)).toEqual(
      expect.arrayContaining(['system:user:create', 'system:user:unlock']),
    );
    expect(usersMenu.children.every((b) => b.type === 'button')).toBe(true);
    expect(named(tree, 'Monitor').children.map((n) => n.name)).toEqual([
      'Online sessions',
      'Login logs',
      'Operation logs',
      'Server monitor',
      'Dashboard',
      'Front-end errors',
      'Error alerts',
      'Tasks',
    ]);
    expect(named(tree, 'Open Platform').children.map((n) => n.name)).toEqual(['Applications', 'Webhooks']);
    expect(named(tree, 'Platform').children.map((n) => n.name)).toEqual(['Tenants', 'Cron jobs']);
    // Every code on a menu node guards a real route: a role bound to menus gets usable permissions.
    const codes: string[] = [];
    const walk = (nodes: Node[]) => {
      for (const n of nodes) {
        if (n.permission) codes.push(n.permission);
        walk(n.children);
      }
    };
    walk(tree);
    expect(codes.filter((c) => !t.app.permissionCodes.has(c))).toEqual([]);
    const hidden = tree.filter((n) => n.hidden);
    expect(hidden.map((n) => [n.name, (n as unknown as { path: string }).path])).toEqual([
      ['Profile', '/profile'],
      ['Notification center', '/notifications'],
    ]);
  });

  it('gives the demo administrator a tenant-admin role with every tenant code and every tenant menu', async () => {
    const role = one(
      await db()
        .select()
        .from(roles)
        .where(and(eq(roles.tenantId, t.demoTenantId), eq(roles.code, 'tenant-admin'))),
    );
    expect(role.permissions).toEqual(allTenantPermissions(t).sort());
    const bound = await db().select({ id: roleMenus.menuId }).from(roleMenus).where(eq(roleMenus.roleId, role.id));
    const all = await db().select().from(menus);
    const boundIds = new Set(bound.map((b) => b.id));
    for (const m of all) {
      const platformOnly = m.permission?.startsWith('platform:') || m.name === 'Platform';
      expect(boundIds.has(m.id), m.name).toBe(!platformOnly);
    }
  });

  it('is idempotent: a second start changes nothing', async () => {
    const counts = async () =>
      Promise.all(
        [menus, roles, roleMenus, users, userRoles, tenants].map(
          async (table) => (await db().select({ n: count() }).from(table))[0]?.n,
        ),
      );
    const before = await counts();
    const report = await seedIdentity(t.app.ctx, t.app.permissionCodes);
    expect(report.created).toBe(false);
    expect(await counts()).toEqual(before);
  });
});

describe('GET /api/menus', () => {
  it('a tenant sees the tree without platform-only nodes', async () => {
    const res = await call(t.app, 'GET', '/api/menus', { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    const nodes = flatten(res.json().data);
    expect(nodes.map((n) => n.name)).toEqual(
      expect.arrayContaining(['System', 'Users', 'Menus', 'Monitor', 'Profile']),
    );
    expect(nodes.map((n) => n.name)).not.toContain('Platform');
    expect(nodes.some((n) => n.permission?.startsWith('platform:'))).toBe(false);
  });

  it('needs system:menu:list', async () => {
    expectError(await call(t.app, 'GET', '/api/menus', { token: noPerms.token }), 403, 'auth.permission_denied');
  });
});

describe('GET /api/menus/:id', () => {
  it('returns one node', async () => {
    const res = await call(t.app, 'GET', `/api/menus/${menuByName.get('Users')}`, { token: t.demoAdminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'Users',
      type: 'menu',
      permission: 'system:user:list',
      hidden: false,
    });
  });

  it('answers 404 to a tenant for a platform-only node and for an unknown id', async () => {
    expectError(
      await call(t.app, 'GET', `/api/menus/${menuByName.get('Tenants')}`, { token: t.demoAdminToken }),
      404,
      'identity.menu_not_found',
    );
    expectError(await call(t.app, 'GET', '/api/menus/999999', { token: t.adminToken }), 404, 'identity.menu_not_found');
  });

  it('rejects a malformed id and needs system:menu:list', async () => {
    expectError(
      await call(t.app, 'GET', '/api/menus/abc', { token: t.adminToken }),
      400,
      'request.validation_failed',
      'id',
    );
    expectError(
      await call(t.app, 'GET', `/api/menus/${menuByName.get('Users')}`, { token: noPerms.token }),
      403,
      'auth.permission_denied',
    );
  });
});

describe('POST /api/menus', () => {
  it('the platform administrator adds a directory, a page and a button', async () => {
    const dir = await createMenu({ type: 'directory', name: uniq('Reports'), path: '/reports', icon: 'chart' });
    const page = await createMenu({
      type: 'menu',
      name: uniq('Sales'),
      parentId: dir.id,
      path: '/reports/sales',
      permission: 'system:user:list',
    });
    const btn = await createMenu({
      type: 'button',
      name: 'Export',
      parentId: page.id,
      permission: 'system:user:update',
      sort: 5,
    });
    expect(await menuRow(btn.id)).toMatchObject({
      parentId: page.id,
      type: 'button',
      hidden: false,
      status: 'active',
      sort: 5,
    });
  });

  it('refuses a button without a code, a missing parent and a button parent, writing nothing', async () => {
    const name = uniq('Bad');
    const count0 = (await db().select({ n: count() }).from(menus))[0]?.n;
    const buttonId = one(await db().select().from(menus).where(eq(menus.type, 'button')).limit(1)).id;
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: t.adminToken, body: { type: 'button', name } }),
      400,
      'request.validation_failed',
      'permission',
    );
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: t.adminToken, body: { type: 'menu', name, parentId: 999999 } }),
      400,
      'request.validation_failed',
      'parentId',
    );
    expectError(
      await call(t.app, 'POST', '/api/menus', {
        token: t.adminToken,
        body: { type: 'menu', name, parentId: buttonId },
      }),
      400,
      'request.validation_failed',
      'parentId',
    );
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: t.adminToken, body: { type: 'page', name } }),
      400,
      'request.validation_failed',
      'type',
    );
    expect((await db().select({ n: count() }).from(menus))[0]?.n).toBe(count0);
  });

  it('is refused to tenant users, even one granted the code, and to a super administrator inside a tenant', async () => {
    const name = uniq('Nope');
    const body = { type: 'directory', name };
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: t.demoAdminToken, body }),
      403,
      'auth.permission_denied',
    );
    const granted = await createUserWithPermissions(t, ['platform:menu:create']);
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: granted.token, body }),
      403,
      'auth.platform_scope_required',
    );
    expectError(
      await call(t.app, 'POST', '/api/menus', { token: t.adminToken, tenantId: t.demoTenantId, body }),
      403,
      'auth.platform_scope_required',
    );
    expect(await db().select().from(menus).where(eq(menus.name, name))).toHaveLength(0);
  });
});

describe('PUT /api/menus/:id', () => {
  it('changes a node', async () => {
    const m = await createMenu({ type: 'menu', name: uniq('Old') });
    const body = { name: 'New name', hidden: true, permission: 'system:user:list', sort: 3 };
    const res = await call(t.app, 'PUT', `/api/menus/${m.id}`, { token: t.adminToken, body });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: m.id, ...body });
  });

  it('refuses a cycle, naming parentId, and leaves the tree as it was', async () => {
    const a = await createMenu({ type: 'directory', name: uniq('A') });
    const b = await createMenu({ type: 'directory', name: uniq('B'), parentId: a.id });
    const c = await createMenu({ type: 'menu', name: uniq('C'), parentId: b.id });
    expectError(
      await call(t.app, 'PUT', `/api/menus/${a.id}`, { token: t.adminToken, body: { parentId: c.id } }),
      400,
      'request.validation_failed',
      'parentId',
    );
    expectError(
      await call(t.app, 'PUT', `/api/menus/${a.id}`, { token: t.adminToken, body: { parentId: a.id } }),
      400,
      'request.validation_failed',
      'parentId',
    );
    expectError(
      await call(t.app, 'PUT', `/api/menus/${b.id}`, {
        token: t.adminToken,
        body: { type: 'button', permission: 'system:user:list' },
      }),
      400,
      'request.validation_failed',
      'type',
    );
    expect((await menuRow(a.id))?.parentId).toBeNull();
    expect((await menuRow(b.id))?.type).toBe('directory');
    const moved = await call(t.app, 'PUT', `/api/menus/${c.id}`, { token: t.adminToken, body: { parentId: null } });
    expect(moved.json().data.parentId).toBeNull();
  });

  it('a changed node reaches signed-in holders at once', async () => {
    const u = await createUserWithPermissions(t, []);
    // A role of the user's own, bound to a fresh page with a code.
    const page = await createMenu({ type: 'menu', name: uniq('Page'), permission: 'system:user:list' });
    const r = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: `menu-${u.userId}`, name: 'Menu role' })
        .returning(),
    );
    await db().insert(userRoles).values({ tenantId: t.demoTenantId, userId: u.userId, roleId: r.id });
    await db().insert(roleMenus).values({ tenantId: t.demoTenantId, roleId: r.id, menuId: page.id });
    await call(t.app, 'PUT', `/api/menus/${page.id}`, {
      token: t.adminToken,
      body: { permission: 'system:role:list' },
    });
    expect((await call(t.app, 'GET', '/api/roles', { token: u.token })).statusCode).toBe(200);
    await call(t.app, 'PUT', `/api/menus/${page.id}`, { token: t.adminToken, body: { status: 'disabled' } });
    expect((await call(t.app, 'GET', '/api/roles', { token: u.token })).statusCode).toBe(403);
  });

  it('is refused to tenant users and leaves the node unchanged', async () => {
    const id = menuId('Users');
    expectError(
      await call(t.app, 'PUT', `/api/menus/${id}`, { token: t.demoAdminToken, body: { name: 'Hacked' } }),
      403,
      'auth.permission_denied',
    );
    const granted = await createUserWithPermissions(t, ['platform:menu:update']);
    expectError(
      await call(t.app, 'PUT', `/api/menus/${id}`, { token: granted.token, body: { name: 'Hacked' } }),
      403,
      'auth.platform_scope_required',
    );
    expect((await menuRow(id))?.name).toBe('Users');
  });

  it('answers 404 for an unknown node', async () => {
    expectError(
      await call(t.app, 'PUT', '/api/menus/999999', { token: t.adminToken, body: { name: 'X' } }),
      404,
      'identity.menu_not_found',
    );
  });
});

describe('DELETE /api/menus/:id', () => {
  it('deletes a leaf and unbinds it from roles', async () => {
    const leaf = await createMenu({ type: 'menu', name: uniq('Leaf') });
    const r = one(
      await db()
        .insert(roles)
        .values({ tenantId: t.demoTenantId, code: `leaf-${leaf.id}`, name: 'L' })
        .returning(),
    );
    await db().insert(roleMenus).values({ tenantId: t.demoTenantId, roleId: r.id, menuId: leaf.id });
    const res = await call(t.app, 'DELETE', `/api/menus/${leaf.id}`, { token: t.adminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ affected: [leaf.id] });
    expect(await menuRow(leaf.id)).toBeUndefined();
    expect(await db().select().from(roleMenus).where(eq(roleMenus.menuId, leaf.id))).toHaveLength(0);
  });

  it('refuses a node with children (409) and keeps it', async () => {
    const id = menuId('System');
    expectError(
      await call(t.app, 'DELETE', `/api/menus/${id}`, { token: t.adminToken }),
      409,
      'identity.menu_has_children',
    );
    expect(await menuRow(id)).toBeDefined();
  });

  it('is refused to tenant users and to a malformed id', async () => {
    const leaf = await createMenu({ type: 'menu', name: uniq('Keep') });
    expectError(
      await call(t.app, 'DELETE', `/api/menus/${leaf.id}`, { token: other.adminToken }),
      403,
      'auth.permission_denied',
    );
    const granted = await createUserWithPermissions(t, ['platform:menu:delete']);
    expectError(
      await call(t.app, 'DELETE', `/api/menus/${leaf.id}`, { token: granted.token }),
      403,
      'auth.platform_scope_required',
    );
    expectError(
      await call(t.app, 'DELETE', '/api/menus/0', { token: t.adminToken }),
      400,
      'request.validation_failed',
      'id',
    );
    expect(await menuRow(leaf.id)).toBeDefined();
  });
});

describe('GET /api/auth/me menus', () => {
  it('shows a limited user only the bound nodes with their ancestors, and the hidden personal pages flagged', async () => {
    const role = await call(t.app, 'POST', '/api/roles', {
      token: t.demoAdminToken,
      body: {
        code: `limited-${randomBytes(3).toString('hex')}`,
        name: 'Limited',
        menuIds: [menuByName.get('Users'), menuByName.get('Login logs')],
      },
    });
    expect(role.statusCode, role.body).toBe(201);
    const username = `lim${randomBytes(3).toString('hex')}`;
    const created = await call(t.app, 'POST', '/api/users', {
      token: t.demoAdminToken,
      body: { username, password: USER_PASSWORD, nickname: 'Limited', roleIds: [role.json().data.id] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const token = await login(t.app, username, USER_PASSWORD, 'demo');

    const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json().data;
    const tree = me.menus as Node[];
    expect(tree.map((n) => [n.name, n.hidden])).toEqual([
      ['System', false],
      ['Monitor', false],
      ['Profile', true],
      ['Notification center', true],
    ]);
    expect(named(tree, 'System').children.map((n) => n.name)).toEqual(['Users']);
    expect(named(named(tree, 'System').children, 'Users').children).toEqual([]);
    expect(named(tree, 'Monitor').children.map((n) => n.name)).toEqual(['Login logs']);
    expect(me.permissions).toEqual(['monitor:login-log:list', 'system:user:list']);
    expect((await call(t.app, 'GET', '/api/users', { token })).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/roles', { token })).statusCode).toBe(403);
  });
});
