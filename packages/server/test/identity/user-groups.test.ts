import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userGroupMembers, userGroups, users } from '../../src/modules/identity/tables.ts';
import { groupIdsOfUser } from '../../src/modules/identity/user-groups-repository.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, rowCount } from '../helpers/assert.ts';
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

const create = (token: string, body: object) => createVia(t, '/api/user-groups', token, body);

async function userIn(tenantId: number, username: string) {
  const [u] = await t.database.db
    .insert(users)
    .values({ tenantId, username, passwordHash: 'x', nickname: `Nick ${username}` })
    .returning();
  if (!u) throw new Error('user insert failed');
  return u.id;
}

async function membersOf(groupId: number) {
  const rows = await t.database.db.select().from(userGroupMembers).where(eq(userGroupMembers.groupId, groupId));
  return rows.map((r) => r.userId).sort((x, y) => x - y);
}

describe('user groups', () => {
  it('creates, reads, lists, renames and deletes a group', async () => {
    const res = await call(t.app, 'POST', '/api/user-groups', {
      token: a.adminToken,
      body: { name: 'Reviewers', remark: 'code review' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ name: 'Reviewers', remark: 'code review', memberCount: 0 });
    const id = res.json().data.id;
    const other = await create(a.adminToken, { name: 'Writers' });
    await create(b.adminToken, { name: 'Reviewers' });

    const list = await call(t.app, 'GET', '/api/user-groups', { token: a.adminToken });
    expect(list.json().data).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(list.json().data.list.map((g: { id: number }) => g.id)).toEqual([other, id]);
    const found = await call(t.app, 'GET', '/api/user-groups?keyword=review', { token: a.adminToken });
    expect(found.json().data.list.map((g: { id: number }) => g.id)).toEqual([id]);

    const upd = await call(t.app, 'PUT', `/api/user-groups/${id}`, {
      token: a.adminToken,
      body: { name: 'Senior reviewers' },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({ id, name: 'Senior reviewers', remark: 'code review' });
    expect((await call(t.app, 'GET', `/api/user-groups/${id}`, { token: a.adminToken })).json().data.name).toBe(
      'Senior reviewers',
    );

    expect((await call(t.app, 'DELETE', `/api/user-groups/${id}`, { token: a.adminToken })).statusCode).toBe(200);
    const gone = await call(t.app, 'GET', `/api/user-groups/${id}`, { token: a.adminToken });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('identity.user_group_not_found');
  });

  it('a name is unique per tenant: 409 identity.user_group_exists naming name', async () => {
    await create(a.adminToken, { name: 'Unique' });
    const second = await create(a.adminToken, { name: 'Second' });
    const before = await rowCount(t, userGroups);
    const dup = await call(t.app, 'POST', '/api/user-groups', { token: a.adminToken, body: { name: 'Unique' } });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ error: 'identity.user_group_exists', details: [{ field: 'name' }] });
    const rename = await call(t.app, 'PUT', `/api/user-groups/${second}`, {
      token: a.adminToken,
      body: { name: 'Unique' },
    });
    expect(rename.statusCode).toBe(409);
    expect(await rowCount(t, userGroups)).toBe(before);
  });

  it('replaces the members; groupIdsOfUser() lists a user’s groups', async () => {
    const g1 = await create(a.adminToken, { name: 'Members 1' });
    const g2 = await create(a.adminToken, { name: 'Members 2' });
    const [u1, u2, u3] = [
      await userIn(a.tenantId, 'gm-1'),
      await userIn(a.tenantId, 'gm-2'),
      await userIn(a.tenantId, 'gm-3'),
    ];

    const set = await call(t.app, 'PUT', `/api/user-groups/${g1}/members`, {
      token: a.adminToken,
      body: { userIds: [u2, u1] },
    });
    expect(set.statusCode).toBe(200);
    expect(set.json().data).toEqual({ userIds: [u1, u2] });
    await call(t.app, 'PUT', `/api/user-groups/${g2}/members`, { token: a.adminToken, body: { userIds: [u2] } });

    const page = await call(t.app, 'GET', `/api/user-groups/${g1}/members`, { token: a.adminToken });
    expect(page.json().data).toEqual({
      list: [
        { id: u1, username: 'gm-1', nickname: 'Nick gm-1' },
        { id: u2, username: 'gm-2', nickname: 'Nick gm-2' },
      ],
      total: 2,
      page: 1,
      pageSize: 20,
    });
    expect((await call(t.app, 'GET', `/api/user-groups/${g1}`, { token: a.adminToken })).json().data.memberCount).toBe(
      2,
    );
    expect(await groupIdsOfUser(t.database.db, u2)).toEqual([g1, g2]);

    await call(t.app, 'PUT', `/api/user-groups/${g1}/members`, { token: a.adminToken, body: { userIds: [u3] } });
    expect(await membersOf(g1)).toEqual([u3]);
    expect(await groupIdsOfUser(t.database.db, u2)).toEqual([g2]);
    await call(t.app, 'PUT', `/api/user-groups/${g1}/members`, { token: a.adminToken, body: { userIds: [] } });
    expect(await membersOf(g1)).toEqual([]);
    expect(await groupIdsOfUser(t.database.db, u3)).toEqual([]);
  });

  it('refuses members of another tenant or unknown users, naming userIds.N, and keeps the members', async () => {
    const g = await create(a.adminToken, { name: 'Strict' });
    const mine = await userIn(a.tenantId, 'strict-1');
    const theirs = await userIn(b.tenantId, 'strict-b');
    await call(t.app, 'PUT', `/api/user-groups/${g}/members`, { token: a.adminToken, body: { userIds: [mine] } });
    const res = await call(t.app, 'PUT', `/api/user-groups/${g}/members`, {
      token: a.adminToken,
      body: { userIds: [mine, theirs, 999_999] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('request.validation_failed');
    expect(res.json().details.map((d: { field: string }) => d.field)).toEqual(['userIds.1', 'userIds.2']);
    expect(await membersOf(g)).toEqual([mine]);

    for (const [body, field] of [
      [{}, 'userIds'],
      [{ userIds: [mine, mine] }, 'userIds'],
      [{ userIds: ['x'] }, 'userIds.0'],
    ] as [object, string][]) {
      const bad = await call(t.app, 'PUT', `/api/user-groups/${g}/members`, { token: a.adminToken, body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().details[0].field).toBe(field);
    }
    expect(await membersOf(g)).toEqual([mine]);
  });

  it('refuses bad group input naming the field, and writes nothing', async () => {
    const g = await create(a.adminToken, { name: 'Valid' });
    const before = await rowCount(t, userGroups);
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 'n'.repeat(65) }, 'name'],
      [{ name: 'ok', remark: 'r'.repeat(501) }, 'remark'],
    ] as [object, string][]) {
      const res = await call(t.app, 'POST', '/api/user-groups', { token: a.adminToken, body });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe(field);
    }
    const put = await call(t.app, 'PUT', `/api/user-groups/${g}`, { token: a.adminToken, body: { name: '' } });
    expect(put.statusCode).toBe(400);
    expect(await rowCount(t, userGroups)).toBe(before);
  });

  it('needs the user-group permission codes (403 auth.permission_denied)', async () => {
    const g = await create(a.adminToken, { name: 'Perm' });
    const reader = await createUserWithPermissions(t, ['system:user-group:list']);
    const nobody = await createUserWithPermissions(t, []);
    const before = await rowCount(t, userGroups);
    for (const [token, method, url, body] of [
      [nobody.token, 'GET', '/api/user-groups'],
      [nobody.token, 'GET', `/api/user-groups/${g}`],
      [nobody.token, 'GET', `/api/user-groups/${g}/members`],
      [reader.token, 'POST', '/api/user-groups', { name: 'x' }],
      [reader.token, 'PUT', `/api/user-groups/${g}`, { name: 'x' }],
      [reader.token, 'PUT', `/api/user-groups/${g}/members`, { userIds: [] }],
      [reader.token, 'DELETE', `/api/user-groups/${g}`],
    ] as [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toBe('auth.permission_denied');
    }
    expect(await rowCount(t, userGroups)).toBe(before);
    expect((await call(t.app, 'GET', '/api/user-groups', { token: reader.token })).statusCode).toBe(200);
  });

  it('another tenant’s group is not found (404); its name and members stay unchanged', async () => {
    const g = await create(a.adminToken, { name: 'Private' });
    const mine = await userIn(a.tenantId, 'private-1');
    const theirs = await userIn(b.tenantId, 'private-b');
    await call(t.app, 'PUT', `/api/user-groups/${g}/members`, { token: a.adminToken, body: { userIds: [mine] } });
    const [before] = await t.database.db.select().from(userGroups).where(eq(userGroups.id, g));
    for (const [method, url, body] of [
      ['GET', `/api/user-groups/${g}`],
      ['GET', `/api/user-groups/${g}/members`],
      ['PUT', `/api/user-groups/${g}`, { name: 'Taken' }],
      ['PUT', `/api/user-groups/${g}/members`, { userIds: [theirs] }],
      ['PUT', `/api/user-groups/${g}/members`, { userIds: [] }],
      ['DELETE', `/api/user-groups/${g}`],
    ] as ['GET' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token: b.adminToken, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('identity.user_group_not_found');
    }
    const [after] = await t.database.db.select().from(userGroups).where(eq(userGroups.id, g));
    expect(after).toEqual(before);
    expect(await membersOf(g)).toEqual([mine]);
  });
});
