import { randomBytes } from 'node:crypto';
import { and, count, eq, inArray, like, or } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIdentity } from '../../src/modules/identity/index.ts';
import { MENU_TREE, type SeedNode } from '../../src/modules/identity/seed-menus.ts';
import { identitySeedMarks, menus, roleMenus, roles } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { allTenantPermissions, createUserWithPermissions } from '../helpers/fixtures.ts';

/**
 * Upgrades: each start gives the built-in administrator roles what a new version adds (menus,
 * tenant codes) and never re-adds what an administrator removed (docs/decisions/0027).
 */
let t: TestApp;
let other: { id: number; roleId: number; token: string };
let custom: { userId: number; token: string; username: string };
beforeAll(async () => {
  t = await createTestApp();
  const code = `t-${randomBytes(3).toString('hex')}`;
  const res = await call(t.app, 'POST', '/api/tenants', {
    token: t.adminToken,
    body: { code, name: `Tenant ${code}`, adminUsername: 'boss', adminPassword: 'Tenant#Admin2026' },
  });
  expect(res.statusCode, res.body).toBe(201);
  const created = res.json().data as { id: number; admin: { roleId: number } };
  other = { id: created.id, roleId: created.admin.roleId, token: await login(t.app, 'boss', 'Tenant#Admin2026', code) };
  custom = await createUserWithPermissions(t, ['system:user:list']);
});
afterAll(async () => t?.close());

const db = () => t.database.db;
const reseed = () => seedIdentity(t.app.ctx, t.app.permissionCodes);
const paymentCodes = () => [...t.app.permissionCodes].filter((c) => c.startsWith('payment:')).sort();
const countNodes = (nodes: SeedNode[]): number => nodes.reduce((n, c) => n + 1 + countNodes(c.children ?? []), 0);
const paymentNodes = countNodes(MENU_TREE.filter((n) => n.path === '/payment'));

async function tenantAdminRoles() {
  return db()
    .select()
    .from(roles)
    .where(and(eq(roles.code, 'tenant-admin'), inArray(roles.tenantId, [t.demoTenantId, other.id])))
    .orderBy(roles.id);
}

/** The Payment directory and everything under it (ids). */
async function paymentSubtree(): Promise<number[]> {
  const all = await db().select({ id: menus.id, parentId: menus.parentId, path: menus.path }).from(menus);
  const ids = all.filter((m) => m.path === '/payment').map((m) => m.id);
  for (let i = 0; i < ids.length; i++) for (const m of all) if (m.parentId === ids[i]) ids.push(m.id);
  return ids;
}

/** What an install from before the payment feature looks like: no Payment menus, codes or marks. */
async function forgetPayment() {
  const ids = await paymentSubtree();
  expect(ids).toHaveLength(paymentNodes);
  await db().delete(menus).where(inArray(menus.id, ids));
  for (const r of await tenantAdminRoles()) {
    await db()
      .update(roles)
      .set({ permissions: r.permissions.filter((c) => !c.startsWith('payment:')) })
      .where(eq(roles.id, r.id));
  }
  await db()
    .delete(identitySeedMarks)
    .where(
      or(
        and(eq(identitySeedMarks.kind, 'menu'), like(identitySeedMarks.key, '/payment%')),
        and(eq(identitySeedMarks.kind, 'permission'), like(identitySeedMarks.key, 'payment:%')),
      ),
    );
}

async function counts() {
  const tables = [menus, roleMenus, roles, identitySeedMarks];
  return Promise.all(tables.map(async (table) => (await db().select({ n: count() }).from(table))[0]?.n));
}

type MeNode = { name: string; children: MeNode[] };
const names = (nodes: MeNode[]): string[] => nodes.flatMap((n) => [n.name, ...names(n.children)]);

describe('a fresh install', () => {
  it('marks every node of the built-in tree and every tenant code', async () => {
    const marks = await db().select().from(identitySeedMarks);
    expect(marks.filter((m) => m.kind === 'menu')).toHaveLength(countNodes(MENU_TREE));
    expect(
      marks
        .filter((m) => m.kind === 'permission')
        .map((m) => m.key)
        .sort(),
    ).toEqual(allTenantPermissions(t).sort());
  });
});

describe('an install from before a feature', () => {
  it('gets its menus and codes once, on every tenant-admin role, and nothing for other roles', async () => {
    await forgetPayment();
    const customBefore = (
      await db()
        .select()
        .from(roles)
        .where(eq(roles.code, `r-${custom.username}`))
    )[0];

    const report = await reseed();
    expect(report.created).toBe(false);
    expect(report.applied).toEqual({ menusAdded: paymentNodes, codesAdded: paymentCodes().length });

    const ids = await paymentSubtree();
    expect(ids).toHaveLength(paymentNodes);
    for (const r of await tenantAdminRoles()) {
      expect(r.permissions).toEqual(allTenantPermissions(t).sort());
      const bound = await db()
        .select({ id: roleMenus.menuId })
        .from(roleMenus)
        .where(and(eq(roleMenus.roleId, r.id), inArray(roleMenus.menuId, ids)));
      expect(bound).toHaveLength(paymentNodes);
    }

    for (const token of [t.demoAdminToken, other.token]) {
      const me = (await call(t.app, 'GET', '/api/auth/me', { token })).json().data;
      expect(me.permissions).toEqual(expect.arrayContaining(paymentCodes()));
      expect(names(me.menus)).toEqual(expect.arrayContaining(['Payment', 'Orders', 'Refund', 'Payment webhooks']));
    }

    const customAfter = (
      await db()
        .select()
        .from(roles)
        .where(eq(roles.code, `r-${custom.username}`))
    )[0];
    expect(customAfter?.permissions).toEqual(customBefore?.permissions);
    expect(
      await db()
        .select()
        .from(roleMenus)
        .where(eq(roleMenus.roleId, customAfter?.id ?? 0)),
    ).toEqual([]);
    const customMe = (await call(t.app, 'GET', '/api/auth/me', { token: custom.token })).json().data;
    expect(customMe.permissions).toEqual(['system:user:list']);

    const before = await counts();
    const rolesBefore = await tenantAdminRoles();
    expect((await reseed()).applied).toEqual({ menusAdded: 0, codesAdded: 0 });
    expect(await counts()).toEqual(before);
    expect(await tenantAdminRoles()).toEqual(rolesBefore);
  });

  it('seeded by two instances at once, gets one set of rows', async () => {
    await forgetPayment();
    const before = await counts();
    // menus, role_menus (both tenant-admin roles), roles, marks
    const added = [paymentNodes, 2 * paymentNodes, 0, paymentNodes + paymentCodes().length];
    const reports = await Promise.all([reseed(), reseed()]);
    expect(reports.map((r) => r.applied.menusAdded).sort()).toEqual([0, paymentNodes]);
    expect(reports.map((r) => r.applied.codesAdded).sort()).toEqual([0, paymentCodes().length]);
    expect(await paymentSubtree()).toHaveLength(paymentNodes);
    expect(await counts()).toEqual(before.map((n, i) => (n ?? 0) + (added[i] ?? 0)));
  });
});

describe('what an administrator removed', () => {
  it('stays removed: a deleted menu and a code taken from tenant-admin do not come back', async () => {
    const [events] = await db().select().from(menus).where(eq(menus.path, '/payment/events'));
    const del = await call(t.app, 'DELETE', `/api/menus/${events?.id}`, { token: t.adminToken });
    expect(del.statusCode, del.body).toBe(200);

    const [demoRole] = await tenantAdminRoles();
    const kept = (demoRole?.permissions ?? []).filter((c) => c !== 'drive:node:edit');
    const put = await call(t.app, 'PUT', `/api/roles/${demoRole?.id}`, {
      token: t.demoAdminToken,
      body: { permissions: kept },
    });
    expect(put.statusCode, put.body).toBe(200);

    expect((await reseed()).applied).toEqual({ menusAdded: 0, codesAdded: 0 });
    expect(await db().select().from(menus).where(eq(menus.path, '/payment/events'))).toEqual([]);
    const [after] = await tenantAdminRoles();
    expect(after?.permissions).toEqual(kept);
  });
});
