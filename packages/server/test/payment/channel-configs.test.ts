import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentChannelConfigs } from '../../src/modules/payment/tables.ts';
import { createTestApp, call as rawCall, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { sandboxOrder } from './payment-helpers.ts';

/** /api/payment/channel-configs: the kit's listed configurations with per-channel fields and encrypted secrets. */
let t: TestApp;
let token: string;
let other: TenantFixture;
let nobody: { token: string };
let viewer: { token: string };
const answers: string[] = [];
/** a real merchant key: saving checks that it parses */
const SECRET = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const platformPublicKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

async function call(...args: Parameters<typeof rawCall>) {
  const res = await rawCall(...args);
  answers.push(res.body);
  return res;
}

const channelA = (name: string) => ({
  channel: 'channel_a',
  name,
  fields: { mchId: '1900000001', appId: 'wx0000000000000001', merchantSerialNo: 'ABC123' },
  secrets: { merchantPrivateKey: SECRET, apiV3Key: 'k'.repeat(32) },
});

beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: 'https://pay.example.com' } });
  token = t.demoAdminToken;
  ({ other, nobody } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:config:view']);
});
afterAll(async () => t?.close());

describe('payment channel configurations', () => {
  it('creates, reads, lists, updates and deletes; secrets are encrypted and never answered', async () => {
    const created = await call(t.app, 'POST', '/api/payment/channel-configs', { token, body: channelA('A main') });
    expect(created.statusCode, created.body).toBe(201);
    const cfg = created.json().data;
    expect(cfg).toMatchObject({ channel: 'channel_a', status: 'active', hasSecrets: true, notifyUrl: '' });
    expect(cfg.effectiveNotifyUrl).toBe('https://pay.example.com/api/public/payment/notify/channel_a');
    expect(cfg.fields).toEqual({ mchId: '1900000001', appId: 'wx0000000000000001', merchantSerialNo: 'ABC123' });
    const row = await rowById(t, paymentChannelConfigs, cfg.id);
    expect(row?.secretsEncrypted).toBeTruthy();
    expect(row?.secretsEncrypted).not.toContain(SECRET);

    const got = await call(t.app, 'GET', `/api/payment/channel-configs/${cfg.id}`, { token: viewer.token });
    expect(got.statusCode).toBe(200);
    const list = await call(t.app, 'GET', '/api/payment/channel-configs?channel=channel_a', { token });
    expect(list.json().data.list.map((c: { id: number }) => c.id)).toContain(cfg.id);

    const upd = await call(t.app, 'PUT', `/api/payment/channel-configs/${cfg.id}`, {
      token,
      body: {
        status: 'disabled',
        notifyUrl: 'https://own.example.com/cb',
        fields: { platformPublicKeyId: 'PUB_KEY_ID_1', platformPublicKey },
      },
    });
    expect(upd.statusCode, upd.body).toBe(200);
    expect(upd.json().data).toMatchObject({
      status: 'disabled',
      effectiveNotifyUrl: 'https://own.example.com/cb',
      hasSecrets: true,
    });
    expect(upd.json().data.fields.platformPublicKeyId).toBe('PUB_KEY_ID_1');

    const del = await call(t.app, 'DELETE', `/api/payment/channel-configs/${cfg.id}`, { token });
    expect(del.statusCode, del.body).toBe(200);
    expect(await rowById(t, paymentChannelConfigs, cfg.id)).toBeUndefined();
    for (const body of answers) expect(body).not.toContain(SECRET);
  });

  it('several per channel per tenant; names are unique per tenant', async () => {
    await call(t.app, 'POST', '/api/payment/channel-configs', { token, body: channelA('A one') });
    const second = await call(t.app, 'POST', '/api/payment/channel-configs', { token, body: channelA('A two') });
    expect(second.statusCode).toBe(201);
    const dup = await call(t.app, 'POST', '/api/payment/channel-configs', { token, body: channelA('A two') });
    expectError(dup, 409, 'payment.channel_config_name_exists', 'name');
  });

  it('refuses unknown or missing channel fields, naming them, and writes nothing', async () => {
    const before = await rowCount(t, paymentChannelConfigs);
    const unknown = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'sandbox', name: 'S', fields: { colour: 'red' } },
    });
    expectError(unknown, 400, 'request.validation_failed', 'fields.colour');
    const missing = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { ...channelA('A bad'), secrets: { merchantPrivateKey: SECRET } },
    });
    expectError(missing, 400, 'request.validation_failed', 'secrets.apiV3Key');
    const badChannel = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'paypal', name: 'P' },
    });
    expectError(badChannel, 400, 'request.validation_failed', 'channel');
    const badUrl = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'sandbox', name: 'S', notifyUrl: 'ftp://x' },
    });
    expectError(badUrl, 400, 'request.validation_failed', 'notifyUrl');
    expect(await rowCount(t, paymentChannelConfigs)).toBe(before);
  });

  it('a configuration orders were made with cannot be deleted', async () => {
    const res = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'sandbox', name: 'Used sandbox' },
    });
    const id = res.json().data.id;
    await sandboxOrder(t, token);
    expectError(
      await call(t.app, 'DELETE', `/api/payment/channel-configs/${id}`, { token }),
      409,
      'payment.channel_config_in_use',
    );
  });

  it('another tenant’s configuration is not found; missing permissions are refused', async () => {
    const mine = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'sandbox', name: 'Mine' },
    });
    const id = mine.json().data.id;
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      expectError(
        await call(t.app, method, `/api/payment/channel-configs/${id}`, { token: other.adminToken, body }),
        404,
        'payment.channel_config_not_found',
      );
    }
    expectError(
      await call(t.app, 'GET', '/api/payment/channel-configs', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'POST', '/api/payment/channel-configs', {
        token: viewer.token,
        body: { channel: 'sandbox', name: 'V' },
      }),
      403,
      'auth.permission_denied',
    );
    const theirs = await call(t.app, 'GET', '/api/payment/channel-configs', { token: other.adminToken });
    expect(theirs.json().data.list.map((c: { id: number }) => c.id)).not.toContain(id);
  });
});
