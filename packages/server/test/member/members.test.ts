import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMember } from '../../src/modules/member/repository.ts';
import { members } from '../../src/modules/member/tables.ts';
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

const create = (token: string, body: object) => createVia(t, '/api/members', token, body);

describe('members', () => {
  it('creates, reads, lists with keyword and status, updates and deletes', async () => {
    const res = await call(t.app, 'POST', '/api/members', {
      token: a.adminToken,
      body: { nickname: 'Alice', email: 'alice@example.com', phone: '+1 555 0100' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      nickname: 'Alice',
      email: 'alice@example.com',
      phone: '+1 555 0100',
      status: 'active',
    });
    const alice = res.json().data.id;
    const bob = await create(a.adminToken, { nickname: 'Bob', status: 'disabled' });
    await create(b.adminToken, { nickname: 'Alice of B' });

    expect((await call(t.app, 'GET', `/api/members/${bob}`, { token: a.adminToken })).json().data).toMatchObject({
      id: bob,
      nickname: 'Bob',
      email: null,
      phone: null,
      status: 'disabled',
    });
    const all = await call(t.app, 'GET', '/api/members', { token: a.adminToken });
    expect(all.json().data).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(all.json().data.list.map((m: { id: number }) => m.id)).toEqual([bob, alice]);
    const byMail = await call(t.app, 'GET', '/api/members?keyword=EXAMPLE.com', { token: a.adminToken });
    expect(byMail.json().data.list.map((m: { id: number }) => m.id)).toEqual([alice]);
    const byStatus = await call(t.app, 'GET', '/api/members?status=disabled', { token: a.adminToken });
    expect(byStatus.json().data.list.map((m: { id: number }) => m.id)).toEqual([bob]);

    const upd = await call(t.app, 'PUT', `/api/members/${alice}`, {
      token: a.adminToken,
      body: { email: null, status: 'disabled' },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({ nickname: 'Alice', email: null, phone: '+1 555 0100', status: 'disabled' });
    expect(await findMember(t.database.db, { tenantId: a.tenantId }, alice)).toMatchObject({ id: alice, email: null });
    expect(await findMember(t.database.db, { tenantId: b.tenantId }, alice)).toBeNull();

    expect((await call(t.app, 'DELETE', `/api/members/${alice}`, { token: a.adminToken })).json().data).toEqual({
      ok: true,
    });
    expect(await rowById(t, members, alice)).toBeUndefined();
    const gone = await call(t.app, 'GET', `/api/members/${alice}`, { token: a.adminToken });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('member.member_not_found');
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const id = await create(a.adminToken, { nickname: 'Carol', email: 'carol@example.com' });
    const before = await rowCount(t, members);
    for (const [body, field] of [
      [{}, 'nickname'],
      [{ nickname: '' }, 'nickname'],
      [{ nickname: 'x', email: 'not-an-email' }, 'email'],
      [{ nickname: 'x', email: '' }, 'email'],
      [{ nickname: 'x', phone: 'call me' }, 'phone'],
      [{ nickname: 'x', status: 'banned' }, 'status'],
    ] as [object, string][]) {
      const res = await call(t.app, 'POST', '/api/members', { token: a.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const put = await call(t.app, 'PUT', `/api/members/${id}`, { token: a.adminToken, body: { email: 'nope' } });
    expect(put.statusCode).toBe(400);
    expect(put.json().details[0].field).toBe('email');
    expect(await rowCount(t, members)).toBe(before);
    expect((await rowById(t, members, id))?.email).toBe('carol@example.com');
  });

  it('needs the member permission codes (403 auth.permission_denied)', async () => {
    const id = await create(a.adminToken, { nickname: 'Dave' });
    const reader = await createUserWithPermissions(t, ['member:member:list']);
    const nobody = await createUserWithPermissions(t, []);
    const before = await rowCount(t, members);
    for (const [token, method, url, body] of [
      [nobody.token, 'GET', '/api/members'],
      [nobody.token, 'GET', `/api/members/${id}`],
      [reader.token, 'POST', '/api/members', { nickname: 'x' }],
      [reader.token, 'PUT', `/api/members/${id}`, { nickname: 'x' }],
      [reader.token, 'DELETE', `/api/members/${id}`],
    ] as [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toBe('auth.permission_denied');
    }
    expect(await rowCount(t, members)).toBe(before);
    expect((await call(t.app, 'GET', '/api/members', { token: reader.token })).statusCode).toBe(200);
  });

  it('another tenant’s member is not found (404) and stays unchanged', async () => {
    const id = await create(a.adminToken, { nickname: 'Eve', email: 'eve@example.com' });
    const before = await rowById(t, members, id);
    for (const [method, url, body] of [
      ['GET', `/api/members/${id}`],
      ['PUT', `/api/members/${id}`, { nickname: 'Taken' }],
      ['DELETE', `/api/members/${id}`],
    ] as ['GET' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token: b.adminToken, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('member.member_not_found');
    }
    const list = await call(t.app, 'GET', '/api/members?pageSize=200', { token: b.adminToken });
    expect(list.json().data.list.map((m: { id: number }) => m.id)).not.toContain(id);
    expect(await rowById(t, members, id)).toEqual(before);
  });
});
