import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsValues } from '../../src/platform/settings/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { fieldsOf } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let viewer: { token: string };
let nobody: { token: string };

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
  viewer = await createUserWithPermissions(t, ['security:setting:view']);
  nobody = await createUserWithPermissions(t, []);
});
afterAll(async () => t?.close());

const storedRows = () => t.database.db.select().from(settingsValues).where(eq(settingsValues.module, 'security'));
const values = async (token: string) =>
  (await call(t.app, 'GET', '/api/settings/security', { token })).json().data.values;

describe('GET /api/settings/:module', () => {
  it('answers the module, its fields and the effective values', async () => {
    const res = await call(t.app, 'GET', '/api/settings/security', { token: viewer.token });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ module: 'security', title: 'Sign-in security' });
    expect(data.values).toEqual({ captchaEnabled: false, lockThreshold: 5, lockMinutes: 15, passwordMinLength: 8 });
    expect(data.fields).toContainEqual({
      name: 'passwordMinLength',
      description: 'Minimum length of a new password',
      visibility: 'public',
      platformOnly: false,
      default: 8,
    });
    expect(data.fields.map((f: { name: string }) => f.name)).toEqual([
      'captchaEnabled',
      'lockThreshold',
      'lockMinutes',
      'passwordMinLength',
    ]);
  });

  it('answers 404 settings.module_not_found for an unknown module, 403 without the permission', async () => {
    const unknown = await call(t.app, 'GET', '/api/settings/nope', { token: t.adminToken });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toBe('settings.module_not_found');
    const put = await call(t.app, 'PUT', '/api/settings/nope', { token: t.adminToken, body: { x: 1 } });
    expect(put.statusCode).toBe(404);

    const denied = await call(t.app, 'GET', '/api/settings/security', { token: nobody.token });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toContain('security:setting:view');
    const deniedPut = await call(t.app, 'PUT', '/api/settings/security', {
      token: viewer.token,
      body: { lockMinutes: 30 },
    });
    expect(deniedPut.statusCode).toBe(403);
    expect(deniedPut.json().message).toContain('security:setting:edit');
    expect(await values(viewer.token)).toMatchObject({ lockMinutes: 15 });
  });
});

describe('PUT /api/settings/:module', () => {
  it('writes platform values at platform scope and tenant overrides at tenant scope; the tenant wins', async () => {
    const platform = await call(t.app, 'PUT', '/api/settings/security', {
      token: t.adminToken,
      body: { passwordMinLength: 10 },
    });
    expect(platform.statusCode).toBe(200);
    expect(platform.json().data).toMatchObject({ passwordMinLength: 10, lockThreshold: 5 });
    for (const token of [a.adminToken, b.adminToken, viewer.token])
      expect((await values(token)).passwordMinLength).toBe(10);

    const tenant = await call(t.app, 'PUT', '/api/settings/security', {
      token: a.adminToken,
      body: { passwordMinLength: 12, lockThreshold: 3 },
    });
    expect(tenant.statusCode).toBe(200);
    expect(tenant.json().data).toMatchObject({ passwordMinLength: 12, lockThreshold: 3 });
    expect(await values(a.adminToken)).toMatchObject({ passwordMinLength: 12, lockThreshold: 3 });
    expect(await values(b.adminToken)).toMatchObject({ passwordMinLength: 10, lockThreshold: 5 });
    expect(await values(t.adminToken)).toMatchObject({ passwordMinLength: 10, lockThreshold: 5 });
    const own = (await storedRows()).find((r) => r.tenantId === a.tenantId);
    expect(own?.values).toEqual({ passwordMinLength: 12, lockThreshold: 3 });

    // A super administrator inside tenant A (X-Tenant-Id) sees and changes A's overrides.
    const inside = await call(t.app, 'PUT', '/api/settings/security', {
      token: t.adminToken,
      tenantId: a.tenantId,
      body: { lockThreshold: 4 },
    });
    expect(inside.json().data).toMatchObject({ passwordMinLength: 12, lockThreshold: 4 });
    expect(await values(b.adminToken)).toMatchObject({ lockThreshold: 5 });
  });

  it('rejects a bad value with 400 naming the field and writes nothing', async () => {
    const before = JSON.stringify(await storedRows());
    const res = await call(t.app, 'PUT', '/api/settings/security', {
      token: a.adminToken,
      body: { passwordMinLength: 3, lockMinutes: 'soon', captchaEnabled: true, unknownField: 1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('request.validation_failed');
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['passwordMinLength', 'lockMinutes', 'unknownField']));
    expect(fieldsOf(res)).not.toContain('captchaEnabled');
    expect(JSON.stringify(await storedRows())).toBe(before);
    const notObject = await call(t.app, 'PUT', '/api/settings/security', { token: a.adminToken, body: [1] });
    expect(notObject.statusCode).toBe(400);
  });

  it('turns the captcha on and off for sign-in (platform and tenant level)', async () => {
    const captcha = async (tenantCode?: string) =>
      (await call(t.app, 'GET', `/api/auth/captcha${tenantCode ? `?tenantCode=${tenantCode}` : ''}`)).json().data
        .enabled;

    expect(await captcha(b.code)).toBe(false);
    await call(t.app, 'PUT', '/api/settings/security', { token: b.adminToken, body: { captchaEnabled: true } });
    expect(await captcha(b.code)).toBe(true);
    expect(await captcha(a.code)).toBe(false);
    const off = await call(t.app, 'PUT', '/api/settings/security', {
      token: b.adminToken,
      body: { captchaEnabled: false },
    });
    expect(off.json().data.captchaEnabled).toBe(false);
    expect(await captcha(b.code)).toBe(false);

    await call(t.app, 'PUT', '/api/settings/security', { token: t.adminToken, body: { captchaEnabled: true } });
    expect(await captcha()).toBe(true);
    await call(t.app, 'PUT', '/api/settings/security', { token: t.adminToken, body: { captchaEnabled: false } });
    expect(await captcha()).toBe(false);
  });
});

describe('GET /api/settings/me and /api/settings/public', () => {
  it('gives a signed-in user the public and authenticated values of every module, not admin ones', async () => {
    const res = await call(t.app, 'GET', '/api/settings/me', { token: a.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.security).toEqual({ captchaEnabled: false, passwordMinLength: 12 });
    const demo = await call(t.app, 'GET', '/api/settings/me', { token: nobody.token });
    expect(demo.json().data.security).toEqual({ captchaEnabled: false, passwordMinLength: 10 });
    expect((await call(t.app, 'GET', '/api/settings/me')).statusCode).toBe(401);
  });

  it('gives anyone the public platform values the sign-in page needs', async () => {
    const res = await call(t.app, 'GET', '/api/settings/public');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ security: { captchaEnabled: false, passwordMinLength: 10 } });
    const bad = await call(t.app, 'GET', `/api/settings/public?tenantCode=${'x'.repeat(65)}`);
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['tenantCode']);
  });

  it('gives a tenant sign-in page that tenant’s public values; an unknown code gets the platform’s', async () => {
    const own = await call(t.app, 'GET', `/api/settings/public?tenantCode=${a.code}`);
    expect(own.json().data).toEqual({ security: { captchaEnabled: false, passwordMinLength: 12 } });
    const unknown = await call(t.app, 'GET', '/api/settings/public?tenantCode=no-such-tenant');
    expect(unknown.json().data).toEqual({ security: { captchaEnabled: false, passwordMinLength: 10 } });
  });
});
