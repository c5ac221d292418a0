import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemConfigs } from '../../src/modules/system/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createVia, fieldsOf } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';

let t: TestApp;
let other: TenantFixture;
let reader: { token: string };
let nobody: { token: string };

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody } = await twoTenants(t));
  reader = await createUserWithPermissions(t, ['system:config:list']);
});
afterAll(async () => t?.close());

const rowOf = async (id: number) =>
  (await t.database.db.select().from(systemConfigs).where(eq(systemConfigs.id, id)))[0];

const createConfig = (token: string, body: object) => createVia(t, '/api/system-configs', token, body);

describe('system configs', () => {
  it('creates, reads, lists, updates and deletes an entry', async () => {
    const token = t.demoAdminToken;
    const res = await call(t.app, 'POST', '/api/system-configs', {
      token,
      body: { key: 'site.title', value: 'Demo', name: 'Site title', remark: 'shown in the header' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ key: 'site.title', value: 'Demo', name: 'Site title', builtin: false });
    const id = res.json().data.id;
    expect((await call(t.app, 'GET', `/api/system-configs/${id}`, { token })).json().data.key).toBe('site.title');
    const list = await call(t.app, 'GET', '/api/system-configs?keyword=SITE.', { token });
    expect(list.json().data.list.map((c: { id: number }) => c.id)).toEqual([id]);

    const upd = await call(t.app, 'PUT', `/api/system-configs/${id}`, { token, body: { value: 'Demo 2' } });
    expect(upd.json().data).toMatchObject({ key: 'site.title', value: 'Demo 2' });
    expect((await call(t.app, 'DELETE', `/api/system-configs/${id}`, { token })).statusCode).toBe(200);
    expect(await rowOf(id)).toBeUndefined();
  });

  it('answers 409 naming key for a key taken in the same tenant; another tenant may use it', async () => {
    await createConfig(t.demoAdminToken, { key: 'dup.key', value: '1', name: 'Dup' });
    const again = await call(t.app, 'POST', '/api/system-configs', {
      token: t.demoAdminToken,
      body: { key: 'dup.key', value: '2', name: 'Dup' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('system.config_exists');
    expect(fieldsOf(again)).toEqual(['key']);
    await createConfig(other.adminToken, { key: 'dup.key', value: '3', name: 'Dup elsewhere' });
  });

  it('keeps built-in entries: no delete, no new key (409 system.config_builtin), value may change', async () => {
    const [row] = await t.database.db
      .insert(systemConfigs)
      .values({ tenantId: t.demoTenantId, key: 'builtin.key', value: 'v', name: 'Built in', builtin: true })
      .returning();
    const id = row?.id as number;
    const del = await call(t.app, 'DELETE', `/api/system-configs/${id}`, { token: t.demoAdminToken });
    expect(del.statusCode).toBe(409);
    expect(del.json().error).toBe('system.config_builtin');
    const rename = await call(t.app, 'PUT', `/api/system-configs/${id}`, {
      token: t.demoAdminToken,
      body: { key: 'other.key' },
    });
    expect(rename.statusCode).toBe(409);
    expect(rename.json().error).toBe('system.config_builtin');
    const value = await call(t.app, 'PUT', `/api/system-configs/${id}`, {
      token: t.demoAdminToken,
      body: { value: 'w' },
    });
    expect(value.statusCode).toBe(200);
    expect(await rowOf(id)).toMatchObject({ key: 'builtin.key', value: 'w', builtin: true });
  });

  it('rejects bad input with 400 naming the fields and writes nothing', async () => {
    const res = await call(t.app, 'POST', '/api/system-configs', {
      token: t.demoAdminToken,
      body: { key: 'has space', name: '' },
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['key', 'name', 'value']));
    expect(await t.database.db.select().from(systemConfigs).where(eq(systemConfigs.key, 'has space'))).toHaveLength(0);

    const id = await createConfig(t.demoAdminToken, { key: 'bad.update', value: 'keep', name: 'Keep' });
    const upd = await call(t.app, 'PUT', `/api/system-configs/${id}`, {
      token: t.demoAdminToken,
      body: { value: 'x'.repeat(4001) },
    });
    expect(upd.statusCode).toBe(400);
    expect(fieldsOf(upd)).toEqual(['value']);
    expect((await rowOf(id))?.value).toBe('keep');
  });

  it('answers 403 without the permission and writes nothing', async () => {
    expect((await call(t.app, 'GET', '/api/system-configs', { token: nobody.token })).statusCode).toBe(403);
    const res = await call(t.app, 'POST', '/api/system-configs', {
      token: reader.token,
      body: { key: 'denied.key', value: '', name: 'N' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.permission_denied');
    expect(await t.database.db.select().from(systemConfigs).where(eq(systemConfigs.key, 'denied.key'))).toHaveLength(0);
    const id = await createConfig(t.demoAdminToken, { key: 'guarded.key', value: 'g', name: 'Guarded' });
    expect(
      (await call(t.app, 'PUT', `/api/system-configs/${id}`, { token: reader.token, body: { value: 'h' } })).statusCode,
    ).toBe(403);
    expect((await call(t.app, 'DELETE', `/api/system-configs/${id}`, { token: reader.token })).statusCode).toBe(403);
    expect((await rowOf(id))?.value).toBe('g');
  });

  it("answers 404 for another tenant's entry and leaves it unchanged", async () => {
    const id = await createConfig(t.demoAdminToken, { key: 'private.key', value: 'secret', name: 'Private' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { value: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(t.app, method, `/api/system-configs/${id}`, { token: other.adminToken, body });
      expect(r.statusCode, method).toBe(404);
      expect(r.json().error).toBe('system.config_not_found');
    }
    expect((await rowOf(id))?.value).toBe('secret');
  });
});

describe('GET /api/system-configs/key/:key', () => {
  it("answers the tenant's value, else the platform's, to any signed-in user", async () => {
    await createConfig(t.adminToken, { key: 'upload.maxMb', value: '10', name: 'Upload limit' });
    const platform = await call(t.app, 'GET', '/api/system-configs/key/upload.maxMb', { token: nobody.token });
    expect(platform.statusCode).toBe(200);
    expect(platform.json().data).toEqual({ key: 'upload.maxMb', value: '10', level: 'platform' });

    await createConfig(t.demoAdminToken, { key: 'upload.maxMb', value: '50', name: 'Upload limit (demo)' });
    const own = await call(t.app, 'GET', '/api/system-configs/key/upload.maxMb', { token: nobody.token });
    expect(own.json().data).toEqual({ key: 'upload.maxMb', value: '50', level: 'tenant' });
    const elsewhere = await call(t.app, 'GET', '/api/system-configs/key/upload.maxMb', { token: other.adminToken });
    expect(elsewhere.json().data.value).toBe('10');
  });

  it('answers 404 for a key nobody set, even when another tenant set it', async () => {
    await createConfig(other.adminToken, { key: 'only.other', value: 'x', name: 'Other only' });
    const res = await call(t.app, 'GET', '/api/system-configs/key/only.other', { token: nobody.token });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('system.config_not_found');
    expect((await call(t.app, 'GET', '/api/system-configs/key/only.other')).statusCode).toBe(401);
  });
});
