import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type SeededClient, seedClient, startAuthorization } from './oauth-helpers.ts';

/**
 * GET /api/oauth2/authorize/client: what the consent page learns before anyone signs in
 * (docs/decisions/0033) — the application and its tenant's code, only for a registered
 * redirect_uri, never more on an error (RFC 6749 §4.1.2.1).
 */
let s: TestApp;
let c: SeededClient;
let other: TenantFixture;
let otherClient: SeededClient;
const CB = 'https://client.example/cb';

beforeAll(async () => {
  s = await createTestApp();
  c = await seedClient(s, { tenantId: s.demoTenantId, redirectUris: [CB], name: 'Calendar sync' });
  await s.database.db
    .update(openApps)
    .set({ homepageUrl: 'https://calendar.example/', logoUrl: 'https://calendar.example/logo.png' })
    .where(eq(openApps.id, c.id));
  other = await createTenant(s);
  otherClient = await seedClient(s, { tenantId: other.tenantId, redirectUris: [CB], name: 'Other app' });
});
afterAll(async () => s?.close());

const client = (params: Record<string, string>, token?: string) =>
  call(s.app, 'GET', `/api/oauth2/authorize/client?${new URLSearchParams(params)}`, token ? { token } : {});

describe('answers', () => {
  it('the application and its tenant code without a session', async () => {
    const res = await client({ client_id: c.clientId, redirect_uri: CB });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      clientId: c.clientId,
      name: 'Calendar sync',
      homepageUrl: 'https://calendar.example/',
      logoUrl: 'https://calendar.example/logo.png',
      tenantCode: 'demo',
    });
  });

  it('the same whoever is signed in: a user of another tenant learns which tenant to sign in to', async () => {
    const res = await client({ client_id: c.clientId, redirect_uri: CB }, other.adminToken);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.tenantCode).toBe('demo');
  });

  it('tenantCode null for a platform application (its users sign in without a tenant code)', async () => {
    const platformApp = await seedClient(s, { tenantId: null, redirectUris: [CB] });
    const res = await client({ client_id: platformApp.clientId, redirect_uri: CB });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.tenantCode).toBeNull();
  });
});

describe('refuses, saying nothing about the application', () => {
  const unknown = { error: 'invalid_client', error_description: 'unknown client' };
  const unregistered = {
    error: 'invalid_request',
    error_description: 'redirect_uri is not registered for this client',
  };

  it('an unknown client_id → 400 invalid_client', async () => {
    const res = await client({ client_id: 'app_does_not_exist', redirect_uri: CB });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(unknown);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a disabled application → 400 invalid_client', async () => {
    const d = await seedClient(s, { tenantId: s.demoTenantId, redirectUris: [CB] });
    await s.database.db.update(openApps).set({ status: 'disabled' }).where(eq(openApps.id, d.id));
    const res = await client({ client_id: d.clientId, redirect_uri: CB });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(unknown);
  });

  for (const uri of ['https://client.example/cb/', 'https://attacker.test/cb', 'http://client.example/cb']) {
    it(`redirect_uri ${uri} → 400 invalid_request, no name, no tenant, no redirectUrl`, async () => {
      const res = await client({ client_id: c.clientId, redirect_uri: uri });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(unregistered);
    });
  }

  it('a missing redirect_uri → 400 invalid_request', async () => {
    const res = await client({ client_id: c.clientId });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('invalid_request');
    expect(res.body).not.toContain('Calendar');
  });
});

describe('a signed-in user of another tenant', () => {
  it('cannot see or approve the request: authorize/info and authorize answer invalid_client, nothing written', async () => {
    const params = (await startAuthorization(c, 'profile', CB)).params;
    const info = await call(s.app, 'GET', `/api/oauth2/authorize/info?${new URLSearchParams(params)}`, {
      token: other.adminToken,
    });
    expect(info.statusCode).toBe(400);
    expect(info.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
    const decide = await call(s.app, 'POST', '/api/oauth2/authorize', { token: other.adminToken, body: params });
    expect(decide.statusCode).toBe(400);
    expect(decide.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
    // while their own tenant's application of the same redirect URI is theirs to answer
    const own = (await startAuthorization(otherClient, 'profile', CB)).params;
    const ok = await call(s.app, 'GET', `/api/oauth2/authorize/info?${new URLSearchParams(own)}`, {
      token: other.adminToken,
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });
});

// last: it spends this IP's allowance
describe('rate limit', () => {
  it('60 a minute per IP, then 429 with Retry-After in the OAuth error shape', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await client({ client_id: 'app_nope', redirect_uri: CB })).statusCode);
    expect(statuses.filter((st) => st === 429).length).toBeGreaterThanOrEqual(1);
    const res = await client({ client_id: c.clientId, redirect_uri: CB });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.json().error).toBeTypeOf('string');
    expect(res.body).not.toContain('Calendar');
  });
});
