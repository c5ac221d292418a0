import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dictItems, dictTypes } from '../../src/modules/system/tables.ts';
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
  reader = await createUserWithPermissions(t, ['system:dict:list']);
});
afterAll(async () => t?.close());

const createType = (token: string, body: object, tenantId?: number) =>
  createVia(t, '/api/dict-types', token, body, tenantId);

const createItem = (token: string, body: object) => createVia(t, '/api/dict-items', token, body);

describe('dictionary types', () => {
  it('creates, reads, lists with filters, updates and deletes a type (its items go with it)', async () => {
    const token = t.demoAdminToken;
    const res = await call(t.app, 'POST', '/api/dict-types', {
      token,
      body: { code: 'crud_type', name: 'CRUD type', remark: 'r' },
    });
    expect(res.statusCode).toBe(201);
    const id = res.json().data.id;
    expect(res.json().data).toMatchObject({ code: 'crud_type', name: 'CRUD type', status: 'active', remark: 'r' });

    expect((await call(t.app, 'GET', `/api/dict-types/${id}`, { token })).json().data.code).toBe('crud_type');
    const list = await call(t.app, 'GET', '/api/dict-types?keyword=CRUD_t&status=active&page=1&pageSize=10', { token });
    expect(list.json().data).toMatchObject({ total: 1, page: 1, pageSize: 10 });
    expect(list.json().data.list[0].id).toBe(id);
    const none = await call(t.app, 'GET', '/api/dict-types?keyword=crud&status=disabled', { token });
    expect(none.json().data.total).toBe(0);

    const upd = await call(t.app, 'PUT', `/api/dict-types/${id}`, {
      token,
      body: { name: 'Renamed', status: 'disabled' },
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({ code: 'crud_type', name: 'Renamed', status: 'disabled' });

    const itemId = await createItem(token, { typeId: id, label: 'A', value: 'a' });
    const del = await call(t.app, 'DELETE', `/api/dict-types/${id}`, { token });
    expect(del.statusCode).toBe(200);
    expect(await t.database.db.select().from(dictTypes).where(eq(dictTypes.id, id))).toHaveLength(0);
    expect(await t.database.db.select().from(dictItems).where(eq(dictItems.id, itemId))).toHaveLength(0);
    expect((await call(t.app, 'GET', `/api/dict-types/${id}`, { token })).statusCode).toBe(404);
  });

  it('answers 409 naming code for a code taken in the same tenant; another tenant may use it', async () => {
    await createType(t.demoAdminToken, { code: 'dup_code', name: 'One' });
    const again = await call(t.app, 'POST', '/api/dict-types', {
      token: t.demoAdminToken,
      body: { code: 'dup_code', name: 'Two' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toBe('system.dict_type_exists');
    expect(fieldsOf(again)).toEqual(['code']);
    await createType(other.adminToken, { code: 'dup_code', name: 'Other tenant' });

    const second = await createType(t.demoAdminToken, { code: 'dup_code_2', name: 'Two' });
    const rename = await call(t.app, 'PUT', `/api/dict-types/${second}`, {
      token: t.demoAdminToken,
      body: { code: 'dup_code' },
    });
    expect(rename.statusCode).toBe(409);
    expect(rename.json().error).toBe('system.dict_type_exists');
  });

  it('rejects bad input with 400 naming every field, and writes nothing', async () => {
    const res = await call(t.app, 'POST', '/api/dict-types', {
      token: t.demoAdminToken,
      body: { code: '1 bad', name: '', status: 'gone' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('request.validation_failed');
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['code', 'name', 'status']));
    expect(await t.database.db.select().from(dictTypes).where(eq(dictTypes.code, '1 bad'))).toHaveLength(0);

    const id = await createType(t.demoAdminToken, { code: 'bad_update', name: 'Keep' });
    const upd = await call(t.app, 'PUT', `/api/dict-types/${id}`, {
      token: t.demoAdminToken,
      body: { name: 'x'.repeat(65) },
    });
    expect(upd.statusCode).toBe(400);
    expect(fieldsOf(upd)).toEqual(['name']);
    const [row] = await t.database.db.select().from(dictTypes).where(eq(dictTypes.id, id));
    expect(row?.name).toBe('Keep');
  });

  it('answers 403 without the permission and writes nothing', async () => {
    expect((await call(t.app, 'GET', '/api/dict-types', { token: nobody.token })).json().error).toBe(
      'auth.permission_denied',
    );
    const res = await call(t.app, 'POST', '/api/dict-types', {
      token: reader.token,
      body: { code: 'no_perm', name: 'No' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('auth.permission_denied');
    expect(await t.database.db.select().from(dictTypes).where(eq(dictTypes.code, 'no_perm'))).toHaveLength(0);
    const id = await createType(t.demoAdminToken, { code: 'perm_type', name: 'Perm' });
    expect((await call(t.app, 'GET', `/api/dict-types/${id}`, { token: reader.token })).statusCode).toBe(200);
    for (const [method, body] of [
      ['PUT', { name: 'Hack' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(t.app, method, `/api/dict-types/${id}`, { token: reader.token, body });
      expect(r.statusCode).toBe(403);
    }
    const [row] = await t.database.db.select().from(dictTypes).where(eq(dictTypes.id, id));
    expect(row?.name).toBe('Perm');
  });

  it("answers 404 for another tenant's type and leaves it unchanged", async () => {
    const id = await createType(t.demoAdminToken, { code: 'mine_only', name: 'Mine' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'Stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(t.app, method, `/api/dict-types/${id}`, { token: other.adminToken, body });
      expect(r.statusCode, method).toBe(404);
      expect(r.json().error).toBe('system.dict_type_not_found');
    }
    const [row] = await t.database.db.select().from(dictTypes).where(eq(dictTypes.id, id));
    expect(row?.name).toBe('Mine');
    const list = await call(t.app, 'GET', '/api/dict-types?keyword=mine_only', { token: other.adminToken });
    expect(list.json().data.total).toBe(0);
  });
});

describe('dictionary items', () => {
  it('creates, lists by type, updates and deletes items; value is unique within a type only', async () => {
    const token = t.demoAdminToken;
    const typeA = await createType(token, { code: 'items_a', name: 'A' });
    const typeB = await createType(token, { code: 'items_b', name: 'B' });
    const res = await call(t.app, 'POST', '/api/dict-items', {
      token,
      body: { typeId: typeA, label: 'One', value: '1', sort: 2 },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ typeId: typeA, label: 'One', value: '1', sort: 2, status: 'active' });
    const id = res.json().data.id;
    await createItem(token, { typeId: typeB, label: 'One in B', value: '1' });

    const dup = await call(t.app, 'POST', '/api/dict-items', {
      token,
      body: { typeId: typeA, label: 'Again', value: '1' },
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('system.dict_item_exists');
    expect(fieldsOf(dup)).toEqual(['value']);

    const list = await call(t.app, 'GET', `/api/dict-items?typeId=${typeA}`, { token });
    expect(list.json().data.list.map((i: { id: number }) => i.id)).toEqual([id]);
    expect((await call(t.app, 'GET', `/api/dict-items/${id}`, { token })).json().data.label).toBe('One');

    const upd = await call(t.app, 'PUT', `/api/dict-items/${id}`, {
      token,
      body: { label: 'Uno', status: 'disabled' },
    });
    expect(upd.json().data).toMatchObject({ label: 'Uno', status: 'disabled', value: '1' });
    const del = await call(t.app, 'DELETE', `/api/dict-items/${id}`, { token });
    expect(del.statusCode).toBe(200);
    expect(await t.database.db.select().from(dictItems).where(eq(dictItems.id, id))).toHaveLength(0);
  });

  it("refuses a typeId that is not a type of the caller's tenant with 400 naming typeId", async () => {
    const foreignType = await createType(other.adminToken, { code: 'foreign', name: 'Foreign' });
    for (const typeId of [foreignType, 999_999]) {
      const res = await call(t.app, 'POST', '/api/dict-items', {
        token: t.demoAdminToken,
        body: { typeId, label: 'X', value: 'x' },
      });
      expect(res.statusCode).toBe(400);
      expect(fieldsOf(res)).toEqual(['typeId']);
    }
    expect(await t.database.db.select().from(dictItems).where(eq(dictItems.typeId, foreignType))).toHaveLength(0);

    const own = await createType(t.demoAdminToken, { code: 'own_for_move', name: 'Own' });
    const id = await createItem(t.demoAdminToken, { typeId: own, label: 'Stay', value: 'stay' });
    const move = await call(t.app, 'PUT', `/api/dict-items/${id}`, {
      token: t.demoAdminToken,
      body: { typeId: foreignType },
    });
    expect(move.statusCode).toBe(400);
    expect(fieldsOf(move)).toEqual(['typeId']);
    const [row] = await t.database.db.select().from(dictItems).where(eq(dictItems.id, id));
    expect(row?.typeId).toBe(own);
  });

  it('rejects bad input with 400 naming the fields and writes nothing', async () => {
    const typeId = await createType(t.demoAdminToken, { code: 'bad_items', name: 'Bad' });
    const res = await call(t.app, 'POST', '/api/dict-items', {
      token: t.demoAdminToken,
      body: { typeId, value: '', sort: -1 },
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['label', 'value', 'sort']));
    expect(await t.database.db.select().from(dictItems).where(eq(dictItems.typeId, typeId))).toHaveLength(0);
  });

  it('answers 403 without the permission and 404 for another tenant, changing nothing', async () => {
    const typeId = await createType(t.demoAdminToken, { code: 'guarded_items', name: 'Guarded' });
    const id = await createItem(t.demoAdminToken, { typeId, label: 'G', value: 'g' });
    const denied = await call(t.app, 'POST', '/api/dict-items', {
      token: reader.token,
      body: { typeId, label: 'N', value: 'n' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toBe('auth.permission_denied');
    expect(
      (await call(t.app, 'PUT', `/api/dict-items/${id}`, { token: reader.token, body: { label: 'N' } })).statusCode,
    ).toBe(403);
    expect((await call(t.app, 'GET', '/api/dict-items', { token: nobody.token })).statusCode).toBe(403);

    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { label: 'Stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const r = await call(t.app, method, `/api/dict-items/${id}`, { token: other.adminToken, body });
      expect(r.statusCode, method).toBe(404);
      expect(r.json().error).toBe('system.dict_item_not_found');
    }
    const rows = await t.database.db.select().from(dictItems).where(eq(dictItems.typeId, typeId));
    expect(rows.map((r) => r.label)).toEqual(['G']);
  });
});

describe('GET /api/dict-types/:code/items', () => {
  it("serves the platform's active items to any signed-in user, and the tenant's own type first", async () => {
    // Platform type: written by the super administrator at platform scope.
    const platformType = await createType(t.adminToken, { code: 'gender', name: 'Gender' });
    await createItem(t.adminToken, { typeId: platformType, label: 'Female', value: 'f', sort: 2 });
    await createItem(t.adminToken, { typeId: platformType, label: 'Male', value: 'm', sort: 1 });
    await createItem(t.adminToken, { typeId: platformType, label: 'Retired', value: 'r', status: 'disabled' });

    const platform = await call(t.app, 'GET', '/api/dict-types/gender/items', { token: nobody.token });
    expect(platform.statusCode).toBe(200);
    expect(platform.json().data.map((i: { value: string }) => i.value)).toEqual(['m', 'f']);

    const own = await createType(t.demoAdminToken, { code: 'gender', name: 'Gender (demo)' });
    await createItem(t.demoAdminToken, { typeId: own, label: 'Any', value: 'x' });
    const mine = await call(t.app, 'GET', '/api/dict-types/gender/items', { token: nobody.token });
    expect(mine.json().data).toEqual([{ id: expect.any(Number), label: 'Any', value: 'x', sort: 0 }]);

    const elsewhere = await call(t.app, 'GET', '/api/dict-types/gender/items', { token: other.adminToken });
    expect(elsewhere.json().data.map((i: { value: string }) => i.value)).toEqual(['m', 'f']);

    // A disabled tenant type is not in effect: the platform's applies again.
    await call(t.app, 'PUT', `/api/dict-types/${own}`, { token: t.demoAdminToken, body: { status: 'disabled' } });
    const fallback = await call(t.app, 'GET', '/api/dict-types/gender/items', { token: nobody.token });
    expect(fallback.json().data.map((i: { value: string }) => i.value)).toEqual(['m', 'f']);
  });

  it('answers 404 for an unknown code, 400 for a malformed one and 401 without a token', async () => {
    const unknown = await call(t.app, 'GET', '/api/dict-types/no_such_code/items', { token: nobody.token });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('system.dict_type_not_found');
    const bad = await call(t.app, 'GET', '/api/dict-types/-bad-/items', { token: nobody.token });
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['code']);
    expect((await call(t.app, 'GET', '/api/dict-types/gender/items')).statusCode).toBe(401);
  });
});
