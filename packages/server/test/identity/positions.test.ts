import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { positions } from '../../src/modules/identity/tables.ts';
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

const create = (token: string, body: object) => createVia(t, '/api/positions', token, body);

describe('positions', () => {
  it('creates, reads, lists with keyword and status, updates and deletes', async () => {
    const res = await call(t.app, 'POST', '/api/positions', {
      token: a.adminToken,
      body: { code: 'ceo', name: 'Chief executive', sort: 1 },
    });
    expect(res.statusCode).toBe(201);
    const ceo = res.json().data;
    expect(ceo).toMatchObject({ code: 'ceo', name: 'Chief executive', sort: 1, status: 'active', remark: '' });
    const dev = await create(a.adminToken, {
      code: 'dev',
      name: 'Developer',
      status: 'disabled',
      remark: 'writes code',
    });
    await create(b.adminToken, { code: 'dev', name: 'Developer of B' });

    expect((await call(t.app, 'GET', `/api/positions/${dev}`, { token: a.adminToken })).json().data).toMatchObject({
      id: dev,
      code: 'dev',
      status: 'disabled',
      remark: 'writes code',
    });
    const all = await call(t.app, 'GET', '/api/positions', { token: a.adminToken });
    expect(all.json().data).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(all.json().data.list.map((p: { id: number }) => p.id)).toEqual([dev, ceo.id]);
    const byKeyword = await call(t.app, 'GET', '/api/positions?keyword=EXEC', { token: a.adminToken });
    expect(byKeyword.json().data.list.map((p: { id: number }) => p.id)).toEqual([ceo.id]);
    const byStatus = await call(t.app, 'GET', '/api/positions?status=disabled', { token: a.adminToken });
    expect(byStatus.json().data.list.map((p: { id: number }) => p.id)).toEqual([dev]);
    const wildcard = await call(t.app, 'GET', '/api/positions?keyword=%25', { token: a.adminToken });
    expect(wildcard.json().data.total).toBe(0);

    const upd = await call(t.app, 'PUT', `/api/positions/${dev}`, {
      token: a.adminToken,
      body: { name: 'Engineer', status: 'active' },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({ code: 'dev', name: 'Engineer', status: 'active', remark: 'writes code' });

    const del = await call(t.app, 'DELETE', `/api/positions/${dev}`, { token: a.adminToken });
    expect(del.json()).toMatchObject({ code: 0, data: { ok: true } });
    expect(await rowById(t, positions, dev)).toBeUndefined();
    const gone = await call(t.app, 'GET', `/api/positions/${dev}`, { token: a.adminToken });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error).toBe('identity.position_not_found');
  });

  it('a code is unique per tenant: 409 identity.position_exists naming code, on create and on update', async () => {
    await create(a.adminToken, { code: 'cto', name: 'CTO' });
    const other = await create(a.adminToken, { code: 'cfo', name: 'CFO' });
    const before = await rowCount(t, positions);
    const dup = await call(t.app, 'POST', '/api/positions', {
      token: a.adminToken,
      body: { code: 'cto', name: 'Again' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ error: 'identity.position_exists', details: [{ field: 'code' }] });
    expect(await rowCount(t, positions)).toBe(before);
    const rename = await call(t.app, 'PUT', `/api/positions/${other}`, { token: a.adminToken, body: { code: 'cto' } });
    expect(rename.statusCode).toBe(409);
    expect((await rowById(t, positions, other))?.code).toBe('cfo');
    // The same code in another tenant is fine.
    await create(b.adminToken, { code: 'cto', name: 'CTO of B' });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const id = await create(a.adminToken, { code: 'ops', name: 'Operations' });
    const before = await rowCount(t, positions);
    for (const [body, field] of [
      [{ name: 'No code' }, 'code'],
      [{ code: 'has space', name: 'x' }, 'code'],
      [{ code: 'ok', name: '' }, 'name'],
      [{ code: 'ok', name: 'x', sort: 'first' }, 'sort'],
      [{ code: 'ok', name: 'x', status: 'on' }, 'status'],
      [{ code: 'ok', name: 'x', remark: 'r'.repeat(501) }, 'remark'],
    ] as [object, string][]) {
      const res = await call(t.app, 'POST', '/api/positions', { token: a.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const put = await call(t.app, 'PUT', `/api/positions/${id}`, { token: a.adminToken, body: { name: '', sort: -3 } });
    expect(put.statusCode).toBe(400);
    expect(
      put
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['name', 'sort']);
    const list = await call(t.app, 'GET', '/api/positions?pageSize=500', { token: a.adminToken });
    expect(list.statusCode).toBe(400);
    expect(list.json().details[0].field).toBe('pageSize');
    expect(await rowCount(t, positions)).toBe(before);
    expect((await rowById(t, positions, id))?.name).toBe('Operations');
  });

  it('batch delete is atomic: one id of another tenant or unknown → 404 naming it, nothing deleted', async () => {
    const p1 = await create(a.adminToken, { code: 'b1', name: 'Batch 1' });
    const p2 = await create(a.adminToken, { code: 'b2', name: 'Batch 2' });
    const ofB = await create(b.adminToken, { code: 'b3', name: 'Batch of B' });
    const res = await call(t.app, 'DELETE', '/api/positions/batch', {
      token: a.adminToken,
      body: { ids: [p1, ofB, p2, 987_654] },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('identity.position_not_found');
    const named = res
      .json()
      .details.map((d: { message: string }) => d.message)
      .join(' ');
    expect(named).toMatch(new RegExp(`\\b${ofB}\\b`));
    expect(named).toMatch(/\b987654\b/);
    expect(named).not.toMatch(new RegExp(`\\b(${p1}|${p2})\\b`));
    const left = await t.database.db
      .select()
      .from(positions)
      .where(inArray(positions.id, [p1, p2, ofB]));
    expect(left).toHaveLength(3);

    for (const body of [{ ids: [] }, { ids: [p1, p1] }, { ids: [0] }, {}]) {
      const bad = await call(t.app, 'DELETE', '/api/positions/batch', { token: a.adminToken, body });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().details[0].field).toMatch(/^ids/);
    }

    const ok = await call(t.app, 'DELETE', '/api/positions/batch', { token: a.adminToken, body: { ids: [p2, p1] } });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toEqual({ affected: [p2, p1] });
    expect(
      await t.database.db
        .select()
        .from(positions)
        .where(inArray(positions.id, [p1, p2, ofB])),
    ).toHaveLength(1);
  });

  it('needs the position permission codes (403 auth.permission_denied)', async () => {
    const id = await create(a.adminToken, { code: 'perm', name: 'Perm' });
    const reader = await createUserWithPermissions(t, ['system:position:list']);
    const nobody = await createUserWithPermissions(t, []);
    const before = await rowCount(t, positions);
    for (const [token, method, url, body] of [
      [nobody.token, 'GET', '/api/positions'],
      [nobody.token, 'GET', `/api/positions/${id}`],
      [reader.token, 'POST', '/api/positions', { code: 'x', name: 'x' }],
      [reader.token, 'PUT', `/api/positions/${id}`, { name: 'x' }],
      [reader.token, 'DELETE', `/api/positions/${id}`],
      [reader.token, 'DELETE', '/api/positions/batch', { ids: [id] }],
    ] as [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error).toBe('auth.permission_denied');
    }
    expect(await rowCount(t, positions)).toBe(before);
    expect((await call(t.app, 'GET', '/api/positions', { token: reader.token })).statusCode).toBe(200);
  });

  it('another tenant’s position is not found (404) and stays unchanged', async () => {
    const id = await create(a.adminToken, { code: 'secret', name: 'Secret' });
    const before = await rowById(t, positions, id);
    for (const [method, url, body] of [
      ['GET', `/api/positions/${id}`],
      ['PUT', `/api/positions/${id}`, { name: 'Taken' }],
      ['DELETE', `/api/positions/${id}`],
      ['DELETE', '/api/positions/batch', { ids: [id] }],
    ] as ['GET' | 'PUT' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token: b.adminToken, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('identity.position_not_found');
    }
    const list = await call(t.app, 'GET', '/api/positions?pageSize=200', { token: b.adminToken });
    expect(list.json().data.list.map((p: { id: number }) => p.id)).not.toContain(id);
    expect(await rowById(t, positions, id)).toEqual(before);
  });
});
