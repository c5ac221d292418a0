import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTenantByCode, findTenantById } from '../../src/modules/identity/auth-repository.ts';
import { users } from '../../src/modules/identity/tables.ts';
import { updateTenant } from '../../src/modules/identity/tenants-repository.ts';
import { dictTypes } from '../../src/modules/system/tables.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { tenants } from '../../src/platform/tenancy/tables.ts';
import { ADMIN_PASSWORD, call, createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The platform tenant (docs/decisions/0042-platform-tenant.md): the `tenants` row 0 owns every
 * platform-level row. It exists in the database and nowhere in the API: not listed, not found,
 * not editable, no scope to act in, no tenant to sign into. Platform rows still read as
 * platform-level (`tenantId: null`).
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;

describe('the platform tenant, row 0', () => {
  it('exists, active, with a code no tenant can be given', async () => {
    const [row] = await db().select().from(tenants).where(eq(tenants.id, PLATFORM_TENANT_ID));
    expect(row).toMatchObject({ id: 0, code: '_platform', status: 'active', expiresAt: null });
  });

  it('owns the platform administrator, who still reads as platform-level', async () => {
    const raw = (await db().execute(
      sql`select tenant_id from users where username = 'admin' and is_super`,
    )) as unknown as {
      rows: { tenant_id: number }[];
    };
    expect(raw.rows).toEqual([{ tenant_id: 0 }]);
    const [admin] = await db().select().from(users).where(eq(users.username, 'admin'));
    expect(admin?.tenantId).toBeNull();
    const me = await call(t.app, 'GET', '/api/auth/me', { token: t.adminToken });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.tenantId ?? null).toBeNull();
  });

  it('is not listed among the tenants, nor counted', async () => {
    const res = await call(t.app, 'GET', '/api/tenants?pageSize=200', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    const { list, total } = res.json().data as { list: { id: number; code: string }[]; total: number };
    expect(list.map((x) => x.id)).not.toContain(0);
    expect(list.map((x) => x.code)).not.toContain('_platform');
    expect(total).toBe(list.length);
    const found = await call(t.app, 'GET', '/api/tenants?keyword=platform', { token: t.adminToken });
    expect(found.json().data.list.map((x: { id: number }) => x.id)).not.toContain(0);
  });

  it('cannot be read or edited through the API (ids start at 1; the repository refuses 0 as well)', async () => {
    const get = await call(t.app, 'GET', '/api/tenants/0', { token: t.adminToken });
    expect(get.statusCode).toBe(400);
    const put = await call(t.app, 'PUT', '/api/tenants/0', {
      token: t.adminToken,
      body: { name: 'Taken over', status: 'disabled' },
    });
    expect(put.statusCode).toBe(400);
    expect(await findTenantById(db(), PLATFORM_TENANT_ID)).toBeNull();
    expect(await updateTenant(db(), PLATFORM_TENANT_ID, { status: 'disabled' })).toBeNull();
    const [row] = await db().select().from(tenants).where(eq(tenants.id, PLATFORM_TENANT_ID));
    expect(row).toMatchObject({ name: 'Platform', status: 'active' });
  });

  it('is no scope to act in: X-Tenant-Id 0 is an unknown tenant', async () => {
    const res = await call(t.app, 'GET', '/api/auth/me', { token: t.adminToken, tenantId: 0 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'identity.unknown_tenant', details: [{ field: 'X-Tenant-Id' }] });
  });

  it('is no tenant to sign into: its code is refused like any unknown tenant', async () => {
    const res = await call(t.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: '_platform' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('auth.invalid_credentials');
    expect(await findTenantByCode(db(), '_platform')).toBeNull();
  });

  it('keeps platform catalogues apart from a tenant’s of the same code (the plain (tenant_id, code) key)', async () => {
    const body = { code: 'pt_same_code', name: 'Platform list' };
    const platform = await call(t.app, 'POST', '/api/dict-types', { token: t.adminToken, body });
    expect(platform.statusCode, platform.body).toBe(201);
    const again = await call(t.app, 'POST', '/api/dict-types', { token: t.adminToken, body });
    expect(again.statusCode).toBe(409);
    const tenant = await call(t.app, 'POST', '/api/dict-types', {
      token: t.adminToken,
      tenantId: t.demoTenantId,
      body: { ...body, name: 'Demo list' },
    });
    expect(tenant.statusCode, tenant.body).toBe(201);
    const rows = await db().select().from(dictTypes).where(eq(dictTypes.code, 'pt_same_code'));
    expect(rows.map((r) => r.tenantId).sort()).toEqual([t.demoTenantId, null].sort());
  });
});
