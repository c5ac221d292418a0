import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roles, userRoles, users } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, login, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { expectDocumented, type OpenApiDoc, openApiDoc } from '../helpers/documented.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants, USER_PASSWORD } from '../helpers/fixtures.ts';

// GET /api/users/{id}/permissions: "what can this person do" (docs/decisions/0035). Every role,
// user and menu binding is made through the API the console uses; the answer is checked against
// what the person really may do once signed in (GET /api/auth/me and the route guard).

type Grant = { id: number; code: string; name: string; status: string; granting: boolean; via: string[] };
type Entry = { code: string; granted: boolean; bySuper: boolean; declared: boolean; grants: Grant[] };
type Answer = {
  userId: number;
  isSuper: boolean;
  roles: { id: number; code: string; name: string; status: string }[];
  groups: { group: string; codes: Entry[] }[];
  menus: MenuNode[];
};
type MenuNode = { id: number; name: string; permission: string | null; children: MenuNode[] };

const PATH = '/api/users/{id}/permissions';
let t: TestApp;
let other: TenantFixture;
let nobody: { token: string };
let doc: OpenApiDoc;
beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
  doc = await openApiDoc(t.app);
});
afterAll(async () => t?.close());

const uniq = (p: string) => `${p}${randomBytes(3).toString('hex')}`;

async function api(method: 'GET' | 'POST', url: string, body?: object, token = t.demoAdminToken) {
  const res = await call(t.app, method, url, { token, ...(body ? { body } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json().data;
}

async function createRole(name: string, body: { permissions?: string[]; menuIds?: number[]; status?: string }) {
  const r = await api('POST', '/api/roles', { code: uniq('r'), name, ...body });
  return r as { id: number; code: string; name: string };
}

async function createUser(roleIds: number[]) {
  const username = uniq('who');
  const u = await api('POST', '/api/users', { username, password: USER_PASSWORD, nickname: username, roleIds });
  return { id: u.id as number, username };
}

async function effective(id: number | string, token = t.demoAdminToken, tenantId?: number) {
  const res = await call(t.app, 'GET', `/api/users/${id}/permissions`, { token, tenantId });
  return res;
}

async function answerOf(id: number, token = t.demoAdminToken, tenantId?: number): Promise<Answer> {
  const res = await effective(id, token, tenantId);
  expect(res.statusCode, res.body).toBe(200);
  expectDocumented(doc, 'GET', PATH, res);
  return res.json().data;
}

const entries = (a: Answer) => new Map(a.groups.flatMap((g) => g.codes).map((e) => [e.code, e]));
const grantsOf = (a: Answer, code: string) =>
  (entries(a).get(code)?.grants ?? []).map((g) => ({ code: g.code, granting: g.granting, via: g.via }));

/** A button node of the menu tree carrying `code`. */
async function buttonFor(code: string): Promise<number> {
  const tree: MenuNode[] = await api('GET', '/api/menus');
  const walk = (nodes: MenuNode[]): MenuNode | undefined =>
    nodes.map((n) => (n.permission === code && !n.children.length ? n : walk(n.children))).find(Boolean);
  const found = walk(tree);
  if (!found) throw new Error(`no menu node carries ${code}`);
  return found.id;
}

const names = (nodes: MenuNode[]): string[] => nodes.flatMap((n) => [n.name, ...names(n.children)]);

describe('GET /api/users/:id/permissions', () => {
  it('lists each code with the roles that grant it: two roles, a menu button, a disabled role', async () => {
    const unlockButton = await buttonFor('system:user:unlock');
    const lister = await createRole('Lister', { permissions: ['system:user:list', 'system:role:list'] });
    const roleReader = await createRole('Role reader', { permissions: ['system:role:list'], menuIds: [unlockButton] });
    const retired = await createRole('Retired', {
      permissions: ['system:user:list', 'system:user:delete'],
      status: 'disabled',
    });
    const who = await createUser([lister.id, roleReader.id, retired.id]);

    const a = await answerOf(who.id);
    expect(a.userId).toBe(who.id);
    expect(a.isSuper).toBe(false);
    expect(a.roles.map((r) => [r.code, r.status]).sort()).toEqual(
      [
        [lister.code, 'active'],
        [roleReader.code, 'active'],
        [retired.code, 'disabled'],
      ].sort(),
    );

    // two roles give the same code
    expect(entries(a).get('system:role:list')).toMatchObject({ granted: true, bySuper: false, declared: true });
    expect(grantsOf(a, 'system:role:list').sort((x, y) => x.code.localeCompare(y.code))).toEqual(
      [
        { code: lister.code, granting: true, via: ['code'] },
        { code: roleReader.code, granting: true, via: ['code'] },
      ].sort((x, y) => x.code.localeCompare(y.code)),
    );
    // an active and a disabled role: granted, the disabled one shown as not granting
    expect(entries(a).get('system:user:list')?.granted).toBe(true);
    expect(grantsOf(a, 'system:user:list')).toContainEqual({ code: retired.code, granting: false, via: ['code'] });
    expect(grantsOf(a, 'system:user:list')).toContainEqual({ code: lister.code, granting: true, via: ['code'] });
    // only the disabled role holds it: listed, not granted
    expect(entries(a).get('system:user:delete')).toMatchObject({ granted: false, bySuper: false });
    expect(grantsOf(a, 'system:user:delete')).toEqual([{ code: retired.code, granting: false, via: ['code'] }]);
    // a button bound to a role grants its code
    expect(entries(a).get('system:user:unlock')?.granted).toBe(true);
    expect(grantsOf(a, 'system:user:unlock')).toEqual([{ code: roleReader.code, granting: true, via: ['menu'] }]);
    // what no role holds is not there
    expect(entries(a).has('system:user:create')).toBe(false);
    // the roles come with id and name
    const g = entries(a).get('system:user:delete')?.grants[0];
    expect(g).toMatchObject({ id: retired.id, name: 'Retired', status: 'disabled' });

    // grouped as GET /api/permissions groups: by first segment, groups and codes in order
    expect(a.groups.map((x) => x.group)).toEqual([...a.groups.map((x) => x.group)].sort());
    for (const group of a.groups) {
      expect(group.codes.every((e) => e.code.split(':')[0] === group.group)).toBe(true);
      expect(group.codes.map((e) => e.code)).toEqual(group.codes.map((e) => e.code).sort());
    }
    const declaredGroups = (await api('GET', '/api/permissions')) as { group: string; codes: string[] }[];
    for (const group of a.groups) {
      const same = declaredGroups.find((d) => d.group === group.group);
      expect(same?.codes).toEqual(expect.arrayContaining(group.codes.map((e) => e.code)));
    }

    // what the person really gets once signed in: the same codes, the same navigation
    const token = await login(t.app, who.username, USER_PASSWORD, 'demo');
    const me = await api('GET', '/api/auth/me', undefined, token);
    const granted = [...entries(a).values()].filter((e) => e.granted).map((e) => e.code);
    expect(granted.sort()).toEqual([...me.permissions].sort());
    expect(a.menus).toEqual(me.menus);
    // the bound button brings its page and directory along
    expect(names(a.menus)).toEqual(expect.arrayContaining(['System', 'Users', 'Unlock']));
    expectError(await call(t.app, 'DELETE', `/api/users/${who.id}`, { token }), 403, 'auth.permission_denied');
  });

  it('a user without roles may do nothing and sees no menu', async () => {
    const who = await createUser([]);
    const a = await answerOf(who.id);
    expect(a).toEqual({ userId: who.id, isSuper: false, roles: [], groups: [], menus: [] });
  });

  it("'*' is no role code: refused on a role, and a stored one grants no operation", async () => {
    expectError(
      await call(t.app, 'POST', '/api/roles', {
        token: t.demoAdminToken,
        body: { code: uniq('star'), name: 'Star', permissions: ['*'] },
      }),
      400,
      'request.validation_failed',
      'permissions.0',
    );
    // a row written past the API (an old import): what does it give?
    const [star] = await t.database.db
      .insert(roles)
      .values({ tenantId: t.demoTenantId, code: uniq('star'), name: 'Star', permissions: ['*'] })
      .returning();
    if (!star) throw new Error('role insert failed');
    const who = await createUser([]);
    await t.database.db.insert(userRoles).values({ tenantId: t.demoTenantId, userId: who.id, roleId: star.id });

    const a = await answerOf(who.id);
    expect(a.isSuper).toBe(false);
    expect([...entries(a).keys()]).toEqual(['*']);
    // the code is held, but no route declares it: it guards nothing
    expect(entries(a).get('*')).toMatchObject({ granted: true, bySuper: false, declared: false });
    expect(grantsOf(a, '*')).toEqual([{ code: star.code, granting: true, via: ['code'] }]);
    // and indeed the holder may not list users
    const token = await login(t.app, who.username, USER_PASSWORD, 'demo');
    expectError(await call(t.app, 'GET', '/api/users', { token }), 403, 'auth.permission_denied');
  });

  it('a super administrator is granted every code, whatever their roles, and sees every menu', async () => {
    const [superUser] = await t.database.db.select().from(users).where(eq(users.isSuper, true));
    if (!superUser) throw new Error('no super administrator');
    const a = await answerOf(superUser.id, t.adminToken);
    expect(a.isSuper).toBe(true);
    const all = [...entries(a).values()];
    const declared = [...t.app.permissionCodes];
    expect(all.map((e) => e.code).sort()).toEqual(expect.arrayContaining(declared.sort()));
    expect(all.some((e) => e.code.startsWith('platform:'))).toBe(true);
    expect(all.every((e) => e.granted && e.bySuper)).toBe(true);
    const tree: (MenuNode & { status: string })[] = await api('GET', '/api/menus', undefined, t.adminToken);
    const active = (nodes: (MenuNode & { status: string })[]): number =>
      nodes.reduce((n, m) => n + (m.status === 'active' ? 1 : 0) + active(m.children as typeof nodes), 0);
    expect(names(a.menus).length).toBe(active(tree));
    expect(names(a.menus)).toEqual(expect.arrayContaining(['Users', 'Roles', 'Tenants']));

    // the demo tenant's administrator is no super administrator: their role's codes, no platform one
    const [demoAdmin] = await t.database.db.select().from(users).where(eq(users.tenantId, t.demoTenantId));
    if (!demoAdmin) throw new Error('no demo user');
    const d = await answerOf(demoAdmin.id);
    expect(d.isSuper).toBe(false);
    expect([...entries(d).values()].some((e) => e.bySuper || e.code.startsWith('platform:'))).toBe(false);
  });

  it('needs only system:user:list', async () => {
    const who = await createUser([]);
    const lister = await createUserWithPermissions(t, ['system:user:list']);
    expect((await effective(who.id, lister.token)).statusCode).toBe(200);
  });

  it('refuses a caller without system:user:list, telling nothing of the user', async () => {
    const role = await createRole('Secret keeper', { permissions: ['system:user:list'] });
    const who = await createUser([role.id]);
    const res = await effective(who.id, nobody.token);
    expectError(res, 403, 'auth.permission_denied');
    expect(res.body).not.toContain(role.code);
    expect(res.body).not.toContain(who.username);
  });

  it('answers 404 for an unknown id', async () => {
    expectError(await effective(999_999_999), 404, 'identity.user_not_found');
  });

  it("answers 404 for another tenant's user exactly as GET /api/users/{id} does, leaking nothing", async () => {
    const role = await createRole('Demo only', { permissions: ['system:user:list'] });
    const who = await createUser([role.id]);
    const res = await effective(who.id, other.adminToken);
    expectError(res, 404, 'identity.user_not_found');
    const plain = await call(t.app, 'GET', `/api/users/${who.id}`, { token: other.adminToken });
    const unknown = await effective(999_999_999, other.adminToken);
    const withoutId = (body: string) => ({ ...JSON.parse(body), requestId: undefined });
    expect(withoutId(res.body)).toEqual(withoutId(plain.body));
    expect(withoutId(res.body)).toEqual(withoutId(unknown.body));
    for (const secret of [who.username, role.code, 'Demo only', 'system:']) expect(res.body).not.toContain(secret);
    // and the other way round: the demo administrator does not see the other tenant's administrator
    expectError(await effective(other.adminUserId), 404, 'identity.user_not_found');
    // the platform super administrator inside the tenant (X-Tenant-Id) does
    expect((await answerOf(who.id, t.adminToken, t.demoTenantId)).roles.map((r) => r.id)).toEqual([role.id]);
  });

  it.each([
    ['a word', 'abc'],
    ['a fraction', '1.5'],
    ['zero', '0'],
    ['a negative', '-1'],
    ['past int4', '2147483648'],
    ['past 2^53', '9007199254740993'],
    ['1e308', '1e308'],
    ['a NUL', '%00'],
    ['a hundred digits', '9'.repeat(100)],
    ['SQL', encodeURIComponent("1' OR '1'='1")],
  ])('answers 400 naming the id for %s, never 500', async (_label, id) => {
    expectError(await effective(id), 400, 'request.validation_failed', 'id');
  });

  it('answers 414 for an id longer than any path segment may be', async () => {
    expectError(await effective('9'.repeat(5000)), 414, 'request.uri_too_long');
  });
});
