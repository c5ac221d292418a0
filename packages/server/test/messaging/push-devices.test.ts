import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushConfigs, pushDevices } from '../../src/modules/messaging/push/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';

/** Device binding (any signed-in user) and the push configuration (administrators) over HTTP. */
let t: TestApp;
let other: TenantFixture;
let ada: { userId: number; token: string };
let bob: { userId: number; token: string };

const bind = (token: string, body: Record<string, unknown>) =>
  call(t.app, 'POST', '/api/push-devices', { token, body });
const mine = async (token: string) =>
  (await call(t.app, 'GET', '/api/push-devices', { token })).json().data.list as {
    id: number;
    registrationId: string;
    userId: number;
  }[];

beforeAll(async () => {
  t = await createTestApp();
  ({ other, nobody: ada } = await twoTenants(t));
  bob = await createUserWithPermissions(t, []);
});
afterAll(async () => t?.close());

describe('push devices', () => {
  let adaPhone: number;

  it('binds my device, without any permission', async () => {
    const res = await bind(ada.token, {
      platform: 'android',
      registrationId: '1a0018970a3b5c2d',
      deviceName: 'Pixel 8',
      appVersion: '2.4.0',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      userId: ada.userId,
      platform: 'android',
      registrationId: '1a0018970a3b5c2d',
      deviceName: 'Pixel 8',
      appVersion: '2.4.0',
      status: 'active',
    });
    adaPhone = res.json().data.id;
    expect((await rowById(t, pushDevices, adaPhone))?.tenantId).toBe(t.demoTenantId);
    expect((await mine(ada.token)).map((d) => d.id)).toEqual([adaPhone]);
    expect(await mine(bob.token)).toEqual([]);
  });

  it('binding the same id again refreshes the same row', async () => {
    const res = await bind(ada.token, { platform: 'android', registrationId: '1a0018970a3b5c2d', appVersion: '2.5.0' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ id: adaPhone, appVersion: '2.5.0', deviceName: '' });
    expect((await mine(ada.token)).length).toBe(1);
  });

  it('an id bound to someone else moves to the caller', async () => {
    const res = await bind(bob.token, { platform: 'android', registrationId: '1a0018970a3b5c2d' });
    expect(res.json().data).toMatchObject({ id: adaPhone, userId: bob.userId });
    expect(await mine(ada.token)).toEqual([]);
    expect((await mine(bob.token)).map((d) => d.id)).toEqual([adaPhone]);
    // moved back for the next tests
    await bind(ada.token, { platform: 'android', registrationId: '1a0018970a3b5c2d' });
  });

  it('the same id in another tenant is a device of its own', async () => {
    const res = await bind(other.adminToken, { platform: 'ios', registrationId: '1a0018970a3b5c2d' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.id).not.toBe(adaPhone);
    expect((await rowById(t, pushDevices, adaPhone))?.userId).toBe(ada.userId);
  });

  it('refuses bad input, naming the field; needs a signed-in user', async () => {
    const before = await rowCount(t, pushDevices);
    expectError(
      await bind(ada.token, { platform: 'symbian', registrationId: 'x1' }),
      400,
      'request.validation_failed',
      'platform',
    );
    expectError(
      await bind(ada.token, { platform: 'ios', registrationId: 'has spaces' }),
      400,
      'request.validation_failed',
      'registrationId',
    );
    expectError(await bind(ada.token, { platform: 'ios' }), 400, 'request.validation_failed', 'registrationId');
    expect(
      (await call(t.app, 'POST', '/api/push-devices', { body: { platform: 'ios', registrationId: 'x' } })).statusCode,
    ).toBe(401);
    expect((await call(t.app, 'GET', '/api/push-devices')).statusCode).toBe(401);
    expect(await rowCount(t, pushDevices)).toBe(before);
  });

  it("unbinds my own device; another user's or tenant's is not found and stays", async () => {
    const res = await bind(ada.token, { platform: 'web', registrationId: 'web-ada-1' });
    const id = res.json().data.id;
    expectError(
      await call(t.app, 'DELETE', `/api/push-devices/${id}`, { token: bob.token }),
      404,
      'messaging.push_device_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/push-devices/${id}`, { token: t.demoAdminToken }),
      404,
      'messaging.push_device_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/push-devices/${id}`, { token: other.adminToken }),
      404,
      'messaging.push_device_not_found',
    );
    expect(await rowById(t, pushDevices, id)).toBeDefined();
    const del = await call(t.app, 'DELETE', `/api/push-devices/${id}`, { token: ada.token });
    expect(del.statusCode).toBe(200);
    expect(await rowById(t, pushDevices, id)).toBeUndefined();
    expect((await mine(ada.token)).map((d) => d.registrationId)).toEqual(['1a0018970a3b5c2d']);
  });
});

describe('push configuration', () => {
  const SECRET = 'jpush-master-secret-0001';

  it('reads as not configured at first', async () => {
    const res = await call(t.app, 'GET', '/api/push-config', { token: t.demoAdminToken });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      configured: false,
      effective: 'none',
      endpoint: 'https://api.jpush.cn',
      masterSecretSet: false,
    });
  });

  it('the first save needs the app key and master secret; bad endpoints are refused; nothing written', async () => {
    const before = await rowCount(t, pushConfigs);
    const res = await call(t.app, 'PUT', '/api/push-config', { token: t.demoAdminToken, body: { enabled: true } });
    expectError(res, 400, 'request.validation_failed', 'masterSecret');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('appKey');
    expectError(
      await call(t.app, 'PUT', '/api/push-config', {
        token: t.demoAdminToken,
        body: { appKey: 'k', masterSecret: 's', endpoint: 'gopher://x' },
      }),
      400,
      'request.validation_failed',
      'endpoint',
    );
    expectError(
      await call(t.app, 'PUT', '/api/push-config', {
        token: t.demoAdminToken,
        body: { appKey: 'k', masterSecret: 's', endpoint: 'http://10.1.2.3' },
      }),
      400,
      'request.validation_failed',
      'endpoint',
    );
    expect(await rowCount(t, pushConfigs)).toBe(before);
  });

  it('saves: the master secret is stored encrypted and never answered; later saves keep omitted fields', async () => {
    const res = await call(t.app, 'PUT', '/api/push-config', {
      token: t.demoAdminToken,
      body: { appKey: 'demo-app-key', masterSecret: SECRET, apnsProduction: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      configured: true,
      effective: 'own',
      appKey: 'demo-app-key',
      masterSecretSet: true,
      apnsProduction: true,
      enabled: true,
    });
    expect(res.body).not.toContain(SECRET);
    const again = await call(t.app, 'PUT', '/api/push-config', { token: t.demoAdminToken, body: { enabled: false } });
    expect(again.json().data).toMatchObject({ appKey: 'demo-app-key', masterSecretSet: true, enabled: false });
    const [row] = await t.database.db.select().from(pushConfigs);
    expect(row?.masterSecretEncrypted).not.toContain(SECRET);
    expect(
      t.app.ctx.secrets.decrypt(row?.masterSecretEncrypted as string, `push_configs.master_secret:${row?.id}`),
    ).toBe(SECRET);
  });

  it("a tenant without its own sees the platform's as effective", async () => {
    await call(t.app, 'PUT', '/api/push-config', {
      token: t.adminToken,
      body: { appKey: 'platform-key', masterSecret: 'platform-secret' },
    });
    const res = await call(t.app, 'GET', '/api/push-config', { token: other.adminToken });
    expect(res.json().data).toMatchObject({ configured: false, effective: 'platform', appKey: '' });
    const platform = await call(t.app, 'GET', '/api/push-config', { token: t.adminToken });
    expect(platform.json().data).toMatchObject({ configured: true, effective: 'own', appKey: 'platform-key' });
  });

  it('needs system:push-config:view and :update', async () => {
    const nobody = await createUserWithPermissions(t, []);
    const viewer = await createUserWithPermissions(t, ['system:push-config:view']);
    expectError(await call(t.app, 'GET', '/api/push-config', { token: nobody.token }), 403, 'auth.permission_denied');
    expect((await call(t.app, 'GET', '/api/push-config', { token: viewer.token })).statusCode).toBe(200);
    const before = await rowCount(t, pushConfigs);
    expectError(
      await call(t.app, 'PUT', '/api/push-config', { token: viewer.token, body: { enabled: true } }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'GET', '/api/push-send-logs', { token: viewer.token }),
      403,
      'auth.permission_denied',
    );
    expect(await rowCount(t, pushConfigs)).toBe(before);
  });
});
