import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentChannelConfigs } from '../../src/modules/payment/tables.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { expectError, fieldsOf, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { type Channel, closeSims, configure, notifyApp, type Sims, startSims } from './notify-harness.ts';
import { createRootCa, issueCertificate } from './simulator/pki.ts';
import { configBodies } from './simulator/sims.ts';

/**
 * What a channel configuration is checked for when it is saved (keys that parse, certificates
 * that match their keys, are current and chain), and the connection test against the simulators.
 */
let s: Sims;
let t: TestApp;
let token: string;
let other: TenantFixture;
let viewer: { token: string };

beforeAll(async () => {
  s = await startSims();
  t = await notifyApp(s);
  token = t.demoAdminToken;
  ({ other } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:config:view']);
});
afterAll(async () => {
  await t?.close();
  await closeSims(s);
});

const pem = (k: { export(o: { type: 'pkcs8' | 'spki'; format: 'pem' }): string | Buffer }, type: 'pkcs8' | 'spki') =>
  k.export({ type, format: 'pem' }).toString();
const otherRsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const DAY = 86_400_000;
type Body = { fields: Record<string, string>; secrets: Record<string, string> };

async function create(channel: Channel, name: string, change: (b: Body) => void) {
  const body: Body = structuredClone(configBodies(s)[channel]);
  change(body);
  return call(t.app, 'POST', '/api/payment/channel-configs', { token, body: { channel, name, ...body } });
}

/** Saving refused with 400 naming `field`, and no row written. */
async function refused(channel: Channel, field: string, change: (b: Body) => void) {
  const before = await rowCount(t, paymentChannelConfigs);
  const res = await create(channel, `bad ${field}`, change);
  expectError(res, 400, 'request.validation_failed', field);
  expect(await rowCount(t, paymentChannelConfigs)).toBe(before);
  return res;
}

describe('channel configuration checks on save', () => {
  it('channel_a: the merchant key must be an RSA private key, the APIv3 key 32 bytes, the public-key mode whole', async () => {
    await refused('channel_a', 'secrets.merchantPrivateKey', (b) => {
      b.secrets.merchantPrivateKey = 'not a key';
    });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const res = await refused('channel_a', 'secrets.merchantPrivateKey', (b) => {
      b.secrets.merchantPrivateKey = pem(ec.privateKey, 'pkcs8');
    });
    expect(res.body).toContain('RSA');
    // 32 characters but 64 bytes: not an AES-256 key
    await refused('channel_a', 'secrets.apiV3Key', (b) => {
      b.secrets.apiV3Key = '密'.repeat(32);
    });
    await refused('channel_a', 'fields.platformPublicKey', (b) => {
      Object.assign(b.fields, { platformPublicKeyId: 'PUB_KEY_ID_0114' });
    });
    await refused('channel_a', 'fields.platformPublicKey', (b) => {
      Object.assign(b.fields, { platformPublicKeyId: 'PUB_KEY_ID_0114', platformPublicKey: 'garbage' });
    });
    await refused('channel_a', 'fields.baseUrl', (b) => {
      b.fields.baseUrl = 'ftp://gateway';
    });
    const good = await create('channel_a', 'A public-key mode', (b) => {
      Object.assign(b.fields, { platformPublicKeyId: 'PUB_KEY_ID_0114', platformPublicKey: s.a.platformPublicKeyPem });
    });
    expect(good.statusCode, good.body).toBe(201);
  });

  it('channel_b: keys parse; in certificate mode the app certificate carries the app key and is current', async () => {
    await refused('channel_b', 'secrets.appPrivateKey', (b) => {
      b.secrets.appPrivateKey = 'AAAA';
    });
    await refused('channel_b', 'fields.walletPublicKey', (b) => {
      b.fields.walletPublicKey = 'bm90IGEga2V5';
    });
    const root = await createRootCa({ subject: 'CN=Wallet Root,O=Wallet,C=CN' });
    const app = await issueCertificate(root, { subject: 'CN=app,O=Merchant,C=CN' });
    const wallet = await issueCertificate(root, { subject: 'CN=wallet,O=Wallet,C=CN' });
    const expired = await issueCertificate(root, {
      subject: 'CN=app,O=Merchant,C=CN',
      notBefore: new Date(Date.now() - 400 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const certMode = (appCert: string, appKey: string) => (b: Body) => {
      b.fields = {
        appId: b.fields.appId,
        appPublicCert: appCert,
        walletPublicCert: wallet.certPem,
        walletRootCert: root.certPem,
      };
      b.secrets.appPrivateKey = appKey;
    };
    // the certificate of another key than the one that signs the requests
    const mismatch = await refused(
      'channel_b',
      'fields.appPublicCert',
      certMode(app.certPem, pem(otherRsa().privateKey, 'pkcs8')),
    );
    expect(mismatch.body).toContain('does not match appPrivateKey');
    const old = await refused('channel_b', 'fields.appPublicCert', certMode(expired.certPem, expired.keyPem));
    expect(old.body).toContain('expired');
    await refused('channel_b', 'fields.walletRootCert', (b) => {
      certMode(app.certPem, app.keyPem)(b);
      b.fields.walletRootCert = 'no certificate here';
    });
    const good = await create('channel_b', 'B certificate mode', certMode(app.certPem, app.keyPem));
    expect(good.statusCode, good.body).toBe(201);
  });

  it('channel_c: the signing certificate carries the signing key and is current; the intermediate chains to the root', async () => {
    const foreignRoot = await createRootCa({ subject: 'CN=Foreign Root,C=CN' });
    const foreignMiddle = await issueCertificate(foreignRoot, { subject: 'CN=Foreign OCA,C=CN', ca: true });
    await refused('channel_c', 'fields.middleCertPem', (b) => {
      b.fields.middleCertPem = foreignMiddle.certPem;
    });
    await refused('channel_c', 'fields.signCertPem', (b) => {
      b.secrets.signKeyPem = pem(otherRsa().privateKey, 'pkcs8');
    });
    const expired = await issueCertificate(foreignMiddle, {
      subject: 'CN=merchant,C=CN',
      notBefore: new Date(Date.now() - 400 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const res = await refused('channel_c', 'fields.signCertPem', (b) => {
      b.fields.signCertPem = expired.certPem;
      b.secrets.signKeyPem = expired.keyPem;
    });
    expect(res.body).toContain('expired');
    await refused('channel_c', 'fields.rootCertPem', (b) => {
      b.fields.rootCertPem = 'not a certificate';
    });
    await refused('channel_c', 'fields.merId', (b) => {
      b.fields.merId = '123';
    });
  });

  it('an update is checked against the merged configuration and leaves the row as it was when refused', async () => {
    const id = await configure(t, token, s, 'channel_a', 'A to update');
    const before = await rowById(t, paymentChannelConfigs, id);
    const res = await call(t.app, 'PUT', `/api/payment/channel-configs/${id}`, {
      token,
      body: {
        name: 'renamed',
        secrets: { merchantPrivateKey: 'broken' },
        fields: { platformPublicKeyId: 'PUB_KEY_ID_9' },
      },
    });
    expectError(res, 400, 'request.validation_failed');
    expect(fieldsOf(res)).toEqual(expect.arrayContaining(['secrets.merchantPrivateKey', 'fields.platformPublicKey']));
    expect(await rowById(t, paymentChannelConfigs, id)).toEqual(before);
  });
});

describe('POST /api/payment/channel-configs/{id}/test', () => {
  const test = (id: number, as = token) =>
    call(t.app, 'POST', `/api/payment/channel-configs/${id}/test`, { token: as });

  it('each channel answers a signed query of a probe order: the configuration works', async () => {
    for (const channel of ['channel_a', 'channel_b', 'channel_c'] as const) {
      const id = await configure(t, token, s, channel, `${channel} tested`);
      const res = await test(id);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data, channel).toMatchObject({ ok: true });
      expect(res.json().data.message).toMatch(/probe order ATRIUMTEST[0-9A-F]{16} does not exist/);
    }
    const sandbox = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: { channel: 'sandbox', name: 'sandbox tested' },
    });
    expect((await test(sandbox.json().data.id)).json().data).toMatchObject({ ok: true });
  });

  it('a key the channel does not know, or an unreachable gateway, fails the test with the reason and no secret', async () => {
    const stranger = pem(otherRsa().privateKey, 'pkcs8');
    const wrongKey = await create('channel_a', 'A wrong key', (b) => {
      b.secrets.merchantPrivateKey = stranger;
    });
    const failed = await test(wrongKey.json().data.id);
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json().data.ok).toBe(false);
    expect(failed.json().data.message).toBeTruthy();
    expect(failed.body).not.toContain(stranger.split('\n')[1]);

    const unreachable = await create('channel_b', 'B unreachable', (b) => {
      b.fields.baseUrl = 'http://127.0.0.1:9/gateway.do'; // loopback, not in the egress allow-list
    });
    const down = await test(unreachable.json().data.id);
    expect(down.json().data.ok).toBe(false);
    expect(down.json().data.message).toContain('the egress guard refused 127.0.0.1:9');
    expect(down.json().data.message).toContain('EGRESS_ALLOW_HOSTS=127.0.0.1:9');
  });

  it('another tenant’s configuration is not found; viewing is not enough to test', async () => {
    const id = await configure(t, token, s, 'channel_c', 'C private');
    expectError(await test(id, other.adminToken), 404, 'payment.channel_config_not_found');
    expectError(await test(id, viewer.token), 403, 'auth.permission_denied');
    expectError(await test(987654321), 404, 'payment.channel_config_not_found');
  });
});
