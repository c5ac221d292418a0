import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { departmentHead, subtreeIds } from '../../src/modules/identity/departments-repository.ts';
import { departments, users } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
});
afterAll(async () => t?.close());

const create = (token: string, body: object) => createVia(t, '/api/departments', token, body);

async function userIn(tenantId: number, username: string, departmentId: number | null = null) {
  const [u] = await t.database.db
    .insert(users)
    .values({ tenantId, username, passwordHash: 'x', nickname: `Nick ${username}`, departmentId })
    .returning();
  if (!u) throw new Error('user insert failed');
  return u.id;
}

describe('departments: create and read', () => {
  it('creates a root and a child with ancestor_ids, and returns the tree of the caller’s tenant only', async () => {
    const root = await create(a.adminToken, { name: 'Head office', sort: 1 });
    const child = await create(a.adminToken, { name: 'Sales', parentId: root });
    const grandchild = await create(a.adminToken, { name: 'Sales East', parentId: child, status: 'disabled' });
    await create(b.adminToken, { name: 'B only' });

    expect((await rowById(t, departments, root))?.ancestorIds).toEqual([]);
    expect((await rowById(t, departments, child))?.ancestorIds).toEqual([root]);
    expect((await rowById(t, departments, grandchild))?.ancestorIds).toEqual([root, child]);

    const res = await call(t.app, 'GET', '/api/departments', { token: a.adminToken });
    expect(res.statusCode).toBe(200);
    const tree = res.json().data;
    const top = tree.find((n: { id: number }) => n.id === root);
    expect(top).toMatchObject({ name: 'Head office', parentId: null, sort: 1, status: 'active' });
    expect(top.children[0]).toMatchObject({ id: child, ancestorIds: [root] });
    expect(top.children[0].children[0]).toMatchObject({ id: grandchild, status: 'disabled', children: [] });
    expect(JSON.stringify(tree)).not.toContain('B only');

    const one = await call(t.app, 'GET', `/api/departments/${child}`, { token: a.adminToken });
    expect(one.statusCode).toBe(200);
    expect(one.json().data).toMatchObject({ id: child, name: 'Sales', parentId: root, headUserId: null });
    expect(typeof one.json().data.createdAt).toBe('string');
  });

  it('sets a head user of the same tenant; departmentHead() returns it', async () => {
    const head = await userIn(a.tenantId, 'dept-head');
    const id = await create(a.adminToken, { name: 'Legal', headUserId: head });
    expect((await rowById(t, departments, id))?.headUserId).toBe(head);
    expect(await departmentHead(t.database.db, { tenantId: a.tenantId }, id)).toBe(head);
    // Another tenant cannot read the head either.
    expect(await departmentHead(t.database.db, { tenantId: b.tenantId }, id)).toBeNull();
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const headOfB = await userIn(b.tenantId, 'b-head');
    const deptOfB = await create(b.adminToken, { name: 'B dept' });
    const before = await rowCount(t, departments);
    const cases: [object, string][] = [
      [{ name: '' }, 'name'],
      [{}, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: 'Ok', sort: -1 }, 'sort'],
      [{ name: 'Ok', status: 'sleeping' }, 'status'],
      [{ name: 'Ok', parentId: 0 }, 'parentId'],
      [{ name: 'Ok', parentId: deptOfB }, 'parentId'],
      [{ name: 'Ok', parentId: 999_999 }, 'parentId'],
      [{ name: 'Ok', headUserId: headOfB }, 'headUserId'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, 'POST', '/api/departments', { token: a.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('request.validation_failed');
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await rowCount(t, departments)).toBe(before);
  });
});

describe('departments: move', () => {
  it('moving a department rewrites the ancestor_ids of its whole subtree', async () => {
    const r1 = await create(a.adminToken, { name: 'R1' });
    const x = await create(a.adminToken, { name: 'X', parentId: r1 });
    const y = await create(a.adminToken, { name: 'Y', parentId: x });
    const z = await create(a.adminToken, { name: 'Z', parentId: y });
    const r2 = await create(a.adminToken, { name: 'R2' });
    const r2child = await create(a.adminToken, { name: 'R2 child', parentId: r2 });
    const sibling = await create(a.adminToken, { name: 'Sibling of X', parentId: r1 });

    const moved = await call(t.app, 'PUT', `/api/departments/${x}`, {
      token: a.adminToken,
      body: { parentId: r2child, name: 'X moved' },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ id: x, name: 'X moved', parentId: r2child, ancestorIds: [r2, r2child] });
    expect((await rowById(t, departments, y))?.ancestorIds).toEqual([r2, r2child, x]);
    expect((await rowById(t, departments, z))?.ancestorIds).toEqual([r2, r2child, x, y]);
    expect((await rowById(t, departments, sibling))?.ancestorIds).toEqual([r1]);
    expect((await subtreeIds(t.database.db, { tenantId: a.tenantId }, r2)).sort()).toEqual(
      [r2, r2child, x, y, z].sort(),
    );
    expect((await subtreeIds(t.database.db, { tenantId: a.tenantId }, r1)).sort()).toEqual([r1, sibling].sort());

    const toRoot = await call(t.app, 'PUT', `/api/departments/${y}`, { token: a.adminToken, body: { parentId: null } });
    expect(toRoot.statusCode).toBe(200);
    expect(await rowById(t, departments, y)).toMatchObject({ parentId: null, ancestorIds: [] });
    expect((await rowById(t, departments, z))?.ancestorIds).toEqual([y]);
    expect((await rowById(t, departments, x))?.ancestorIds).toEqual([r2, r2child]);
    expect(await subtreeIds(t.database.db, { tenantId: b.tenantId }, y)).toEqual([]);
  });

  it('refuses to move a department under itself or its descendant (400 parentId), changing nothing', async () => {
    const p = await create(a.adminToken, { name: 'P' });
    const c = await create(a.adminToken, { name: 'C', parentId: p });
    const g = await create(a.adminToken, { name: 'G', parentId: c });
    for (const parentId of [p, c, g]) {
      const res = await call(t.app, 'PUT', `/api/departments/${p}`, {
        token: a.adminToken,
        body: { parentId, name: 'renamed' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details).toEqual([expect.objectContaining({ field: 'parentId' })]);
    }
    expect(await rowById(t, departments, p)).toMatchObject({ name: 'P', parentId: null, ancestorIds: [] });
    expect((await rowById(t, departments, g))?.ancestorIds).toEqual([p, c]);
  });

  it('two concurrent moves that would make a cycle: one wins, the other is a 400, the tree stays a tree', async () => {
    const m = await create(a.adminToken, { name: 'M' });
    const n = await create(a.adminToken, { name: 'N' });
    const mChild = await create(a.adminToken, { name: 'M child', parentId: m });
    const [r1, r2] = await Promise.all([
      call(t.app, 'PUT', `/api/departments/${m}`, { token: a.adminToken, body: { parentId: n } }),
      call(t.app, 'PUT', `/api/departments/${n}`, { token: a.adminToken, body: { parentId: mChild } }),
    ]);
    expect([r1.statusCode, r2.statusCode].sort()).toEqual([200, 400]);
    const [rm, rn, rc] = [
      await rowById(t, departments, m),
      await rowById(t, departments, n),
      await rowById(t, departments, mChild),
    ];
    if (r1.statusCode === 200) {
      expect([rn?.ancestorIds, rm?.ancestorIds, rc?.ancestorIds]).toEqual([[], [n], [n, m]]);
    } else {
      expect([rm?.ancestorIds, rc?.ancestorIds, rn?.ancestorIds]).toEqual([[], [m], [m, mChild]]);
    }
  });

  it('refuses other bad changes naming the field', async () => {
    const d = await create(a.adminToken, { name: 'D' });
    const headOfB = await userIn(b.tenantId, 'b-head-2');
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ headUserId: headOfB }, 'headUserId'],
      [{ status: 'gone' }, 'status'],
    ] as [object, string][]) {
      const res = await call(t.app, 'PUT', `/api/departments/${d}`, { token: a.adminToken, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((x: { field: string }) => x.field)).toContain(field);
    }
    expect(await rowById(t, departments, d)).toMatchObject({ name: 'D', headUserId: null, status: 'active' });
  });
});

describe('departments: users and delete', () => {
  it('lists users of a department, or of its subtree', async () => {
    const top = await create(a.adminToken, { name: 'Eng' });
    const sub = await create(a.adminToken, { name: 'Eng backend', parentId: top });
    const u1 = await userIn(a.tenantId, 'eng-1', top);
    const u2 = await userIn(a.tenantId, 'eng-2', sub);
    const only = await call(t.app, 'GET', `/api/departments/${top}/users`, { token: a.adminToken });
    expect(only.statusCode).toBe(200);
    expect(only.json().data).toEqual({
      list: [{ id: u1, username: 'eng-1', nickname: 'Nick eng-1' }],
      total: 1,
      page: 1,
      pageSize: 20,
    });
    const all = await call(t.app, 'GET', `/api/departments/${top}/users?includeSubDepartments=true&pageSize=1&page=2`, {
      token: a.adminToken,
    });
    expect(all.json().data).toMatchObject({ list: [{ id: u2 }], total: 2, page: 2, pageSize: 1 });
    const bad = await call(t.app, 'GET', `/api/departments/${top}/users?includeSubDepartments=maybe`, {
      token: a.adminToken,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].field).toBe('includeSubDepartments');
  });

  it('refuses to delete a department with sub-departments (409) or users (409), then deletes a free one', async () => {
    const parent = await create(a.adminToken, { name: 'To delete' });
    const child = await create(a.adminToken, { name: 'Child', parentId: parent });
    const withChildren = await call(t.app, 'DELETE', `/api/departments/${parent}`, { token: a.adminToken });
    expect(withChildren.statusCode).toBe(409);
    expect(withChildren.json().error).toBe('identity.department_has_children');

    const member = await userIn(a.tenantId, 'child-member', child);
    const withUsers = await call(t.app, 'DELETE', `/api/departments/${child}`, { token: a.adminToken });
    expect(withUsers.statusCode).toBe(409);
    expect(withUsers.json().error).toBe('identity.department_has_users');
    expect(await rowById(t, departments, child)).toBeDefined();

    await t.database.db.update(users).set({ departmentId: null }).where(eq(users.id, member));
    expect((await call(t.app, 'DELETE', `/api/departments/${child}`, { token: a.adminToken })).statusCode).toBe(200);
    expect((await call(t.app, 'DELETE', `/api/departments/${parent}`, { token: a.adminToken })).json()).toMatchObject({
      data: { ok: true },
    });
    expect(await rowById(t, departments, parent)).toBeUndefined();
    const again = await call(t.app, 'DELETE', `/api/departments/${parent}`, { token: a.adminToken });
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe('identity.department_not_found');
  });
});

describe('departments: access', () => {
  it('needs the department permission codes (403 auth.permission_denied)', async () => {
    const id = await create(a.adminToken, { name: 'unused' });
    const reader = await createUserWithPermissions(t, ['system:dept:list']);
    const nobody = await createUserWithPermissions(t, []);
    const denied: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      [nobody.token, 'GET', '/api/departments'],
      [nobody.token, 'GET', `/api/departments/${id}`],
      [nobody.token, 'GET', `/api/departments/${id}/users`],
      [reader.token, 'POST', '/api/departments', { name: 'Nope' }],
      [reader.token, 'PUT', `/api/departments/${id}`, { name: 'Nope' }],
      [reader.token, 'DELETE', `/api/departments/${id}`],
    ];
    const before = await rowCount(t, departments);
    for (const [token, method, url, body] of denied) {
      const res = await call(t.app, method, url, { token, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toBe('auth.permission_denied');
    }
    expect(await rowCount(t, departments)).toBe(before);
    expect((await call(t.app, 'GET', '/api/departments', { token: reader.token })).statusCode).toBe(200);
  });

  it('another tenant’s department is not found (404) and stays unchanged', async () => {
    const parentOfA = await create(a.adminToken, { name: 'A parent' });
    const id = await create(a.adminToken, { name: 'A private', parentId: parentOfA });
    const rootOfB = await create(b.adminToken, { name: 'B root' });
    const before = await rowById(t, departments, id);
    const attempts: ['GET' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', `/api/departments/${id}`],
      ['GET', `/api/departments/${id}/users`],
      ['PUT', `/api/departments/${id}`, { name: 'Taken over', parentId: rootOfB }],
      ['DELETE', `/api/departments/${id}`],
    ];
    for (const [method, url, body] of attempts) {
      const res = await call(t.app, method, url, { token: b.adminToken, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('identity.department_not_found');
    }
    // Nor can tenant B hang a department under A's.
    const under = await call(t.app, 'POST', '/api/departments', {
      token: b.adminToken,
      body: { name: 'Sneaky', parentId: id },
    });
    expect(under.statusCode).toBe(400);
    expect(await rowById(t, departments, id)).toEqual(before);
  });
});
