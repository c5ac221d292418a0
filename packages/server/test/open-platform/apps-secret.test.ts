import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { type CreatedApp, clientCredentials, confidentialBody, createApp, tablesContaining } from './apps-helpers.ts';

/**
 * Secret rotation, proven with real token requests (client_credentials, HTTP Basic) against a
 * clock the test moves: the replaced secret works during its grace period and not after.
 */
let t: TestApp;
let other: TenantFixture;
let now = Date.now();
const clock = () => new Date(now);
const advance = (seconds: number) => {
  now += seconds * 1000;
};

beforeAll(async () => {
  t = await createTestApp({ clock });
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const rotate = (id: number, body?: object, token = t.demoAdminToken) =>
  call(t.app, 'POST', `/api/open-platform/apps/${id}/secret`, { token, ...(body ? { body } : {}) });

/** Whether a client_credentials grant with this secret succeeds; a refusal must be RFC 6749 invalid_client. */
async function works(app: CreatedApp, secret: string): Promise<boolean> {
  const res = await clientCredentials(t, app.clientId, secret);
  if (res.statusCode === 200) return true;
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json().error).toBe('invalid_client');
  return false;
}

describe('POST /api/open-platform/apps/:id/secret', () => {
  it('answers a new secret once; the old one works until the grace period ends, then invalid_client', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Rotating'));
    const old = app.clientSecret as string;
    expect(await works(app, old)).toBe(true);

    const rotatedAt = now;
    const res = await rotate(app.id, { graceSeconds: 60 });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    const fresh: string = data.clientSecret;
    expect(fresh).toMatch(/^sec_/);
    expect(fresh).not.toBe(old);
    expect(data).toMatchObject({
      id: app.id,
      clientId: app.clientId,
      secretHint: fresh.slice(-4),
      secretRotatedAt: new Date(rotatedAt).toISOString(),
      previousSecretExpiresAt: new Date(rotatedAt + 60_000).toISOString(),
    });

    // stored as digests only; never shown again
    const row = await rowById(t, openApps, app.id);
    expect(row).toMatchObject({ secretHash: sha256(fresh), previousSecretHash: sha256(old) });
    expect(JSON.stringify(row)).not.toContain(fresh);
    expect(JSON.stringify(row)).not.toContain(old);
    expect(await tablesContaining(t, fresh)).toEqual([]);
    const got = await call(t.app, 'GET', `/api/open-platform/apps/${app.id}`, { token: t.demoAdminToken });
    expect(got.body).not.toContain(fresh);
    expect(got.json().data).toMatchObject({
      secretHint: fresh.slice(-4),
      previousSecretExpiresAt: new Date(rotatedAt + 60_000).toISOString(),
    });

    expect(await works(app, fresh)).toBe(true);
    expect(await works(app, old)).toBe(true);
    advance(59);
    expect(await works(app, old)).toBe(true);
    advance(2);
    expect(await works(app, old)).toBe(false);
    expect(await works(app, fresh)).toBe(true);
    expect(await works(app, 'sec_not-a-secret')).toBe(false);
  });

  it('a second rotation replaces the previous secret: the first one stops at once', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Twice'));
    const s0 = app.clientSecret as string;
    const s1 = (await rotate(app.id, { graceSeconds: 3600 })).json().data.clientSecret as string;
    expect(await works(app, s0)).toBe(true);
    const s2 = (await rotate(app.id, { graceSeconds: 3600 })).json().data.clientSecret as string;
    expect(await works(app, s0)).toBe(false);
    expect(await works(app, s1)).toBe(true);
    expect(await works(app, s2)).toBe(true);
    expect(await rowById(t, openApps, app.id)).toMatchObject({
      secretHash: sha256(s2),
      previousSecretHash: sha256(s1),
    });
  });

  it('refuses a grace period outside 0..604800 seconds, changing nothing', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Bounded'));
    const before = await rowById(t, openApps, app.id);
    for (const graceSeconds of [604_801, -1, 1.5, null]) {
      expectError(await rotate(app.id, { graceSeconds }), 400, 'request.validation_failed', 'graceSeconds');
    }
    expect((await rotate(app.id, { graceSeconds: 604_800 })).statusCode).toBe(200);
    expect((await rowById(t, openApps, app.id))?.previousSecretHash).toBe(before?.secretHash);
    const after = await rotate(app.id, { grace: 5 });
    expectError(after, 400, 'request.validation_failed', 'grace');
  });

  it('a public client has no secret to rotate (409) and stays without one', async () => {
    const app = await createApp(t, t.demoAdminToken, {
      name: 'Browser app',
      clientType: 'public',
      grantTypes: ['authorization_code'],
      redirectUris: ['https://spa.example/cb'],
      allowedScopes: ['openid'],
    });
    expectError(await rotate(app.id, {}), 409, 'open_platform.public_client_has_no_secret');
    expect(await rowById(t, openApps, app.id)).toMatchObject({
      secretHash: null,
      secretHint: null,
      secretRotatedAt: null,
    });
  });

  it('needs open:app:secret; another tenant gets 404; neither changes the secret', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Guarded'));
    const before = await rowById(t, openApps, app.id);
    const editor = await createUserWithPermissions(t, ['open:app:list', 'open:app:update']);
    expectError(await rotate(app.id, {}, editor.token), 403, 'auth.permission_denied');
    expectError(await rotate(app.id, {}, other.adminToken), 404, 'open_platform.app_not_found');
    expectError(await rotate(999_999, {}), 404, 'open_platform.app_not_found');
    expect(await rowById(t, openApps, app.id)).toEqual(before);
    expect(await works(app, app.clientSecret as string)).toBe(true);
  });
  it('with no grace the old secret stops at once', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('No grace'));
    const s0 = app.clientSecret as string;
    const res = await rotate(app.id, { graceSeconds: 0 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.previousSecretExpiresAt).toBeNull();
    expect(await works(app, s0)).toBe(false);
    expect(await works(app, res.json().data.clientSecret)).toBe(true);
    expect((await rowById(t, openApps, app.id))?.previousSecretHash).toBeNull();
  });

  // last: moving the clock a day on also ends the administrators' console sessions
  it('by default the old secret works for one day', async () => {
    const app = await createApp(t, t.demoAdminToken, confidentialBody('Daily'));
    const s0 = app.clientSecret as string;
    const rotatedAt = now;
    const res = await rotate(app.id, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.previousSecretExpiresAt).toBe(new Date(rotatedAt + 86_400_000).toISOString());
    advance(86_399);
    expect(await works(app, s0)).toBe(true);
    advance(2);
    expect(await works(app, s0)).toBe(false);
    expect(await works(app, res.json().data.clientSecret)).toBe(true);
  });
});
