import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { call } from '../helpers/app.ts';
import { createTenant, createUserWithPermissions } from '../helpers/fixtures.ts';
import {
  clientAuth,
  codeFlow,
  insecure,
  type OAuthServer,
  type SeededClient,
  seedClient,
  startOAuthServer,
} from './oauth-helpers.ts';

/**
 * RFC 7009 revocation and RFC 7662 introspection, driven the way a standard client does it
 * (oauth4webapi) plus raw form posts where the exact wire answer matters.
 */
let offsetMs = 0;
let s: OAuthServer;
let adminUserId: number;
beforeAll(async () => {
  s = await startOAuthServer({ clock: () => new Date(Date.now() + offsetMs) });
  adminUserId = (await call(s.app, 'GET', '/api/auth/me', { token: s.demoAdminToken })).json().data.user.id;
});
afterAll(async () => s?.close());

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

/** A form POST to a protocol endpoint, optionally with HTTP Basic client credentials. */
async function form(path: string, fields: Record<string, string>, basic?: SeededClient): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic?.clientSecret) {
    const pair = `${encodeURIComponent(basic.clientId)}:${encodeURIComponent(basic.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  const res = await fetch(`${s.issuer}${path}`, { method: 'POST', headers, body: new URLSearchParams(fields) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const introspect = async (caller: SeededClient, token: string) =>
  oauth.processIntrospectionResponse(
    s.as,
    caller.client,
    await oauth.introspectionRequest(s.as, caller.client, clientAuth(caller), token, insecure),
  );

const revoke = async (c: SeededClient, token: string, method: 'basic' | 'post' = 'basic') =>
  oauth.processRevocationResponse(
    await oauth.revocationRequest(s.as, c.client, clientAuth(c, method), token, insecure),
  );

const refresh = async (c: SeededClient, token: string) =>
  oauth.processRefreshTokenResponse(
    s.as,
    c.client,
    await oauth.refreshTokenGrantRequest(s.as, c.client, clientAuth(c), token, insecure),
  );

const clientCredentials = async (c: SeededClient, scope: string) =>
  oauth.processClientCredentialsResponse(
    s.as,
    c.client,
    await oauth.clientCredentialsGrantRequest(s.as, c.client, clientAuth(c), new URLSearchParams({ scope }), insecure),
  );

/** The OAuth error a processing call throws (oauth4webapi ResponseBodyError). */
async function oauthFailure(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  const e = err as oauth.ResponseBodyError;
  return { status: e.status, error: e.error };
}

describe('revocation (RFC 7009)', () => {
  it('revoking an access token ends only that token: the refresh token still works', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access');
    await revoke(c, t.access_token);
    expect(await introspect(c, t.access_token)).toEqual({ active: false });
    expect((await introspect(c, t.refresh_token as string)).active).toBe(true);
    const next = await refresh(c, t.refresh_token as string);
    expect((await introspect(c, next.access_token)).active).toBe(true);
  });

  it('revoking a refresh token ends its whole grant, access tokens of earlier rotations included', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const first = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access');
    const second = await refresh(c, first.refresh_token as string);
    // an unrelated grant of the same client and user is not touched
    const other = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access');

    await revoke(c, second.refresh_token as string, 'post');
    for (const token of [first.access_token, second.access_token, second.refresh_token as string]) {
      expect(await introspect(c, token)).toEqual({ active: false });
    }
    expect(await oauthFailure(refresh(c, second.refresh_token as string))).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
    expect((await introspect(c, other.access_token)).active).toBe(true);
    expect((await introspect(c, other.refresh_token as string)).active).toBe(true);
  });

  it('an unknown token, or one revoked already, answers 200 {} with no-store', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const unknown = await form('/api/oauth2/token/revoke', { token: 'no-such-token' }, c);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({});
    expect(unknown.headers.get('cache-control')).toBe('no-store');

    const cc = await clientCredentials(c, 'drive:read');
    await revoke(c, cc.access_token);
    const again = await form(
      '/api/oauth2/token/revoke',
      { token: cc.access_token, token_type_hint: 'access_token' },
      c,
    );
    expect([again.status, again.body]).toEqual([200, {}]);
  });

  it('another client’s token answers {} and keeps working', async () => {
    const owner = await seedClient(s, { tenantId: s.demoTenantId });
    const stranger = await seedClient(s, { tenantId: s.demoTenantId });
    const t = await codeFlow(s, owner, s.demoAdminToken, 'openid offline_access');
    for (const token of [t.access_token, t.refresh_token as string]) {
      const res = await form('/api/oauth2/token/revoke', { token }, stranger);
      expect([res.status, res.body]).toEqual([200, {}]);
    }
    expect((await introspect(owner, t.access_token)).active).toBe(true);
    const next = await refresh(owner, t.refresh_token as string);
    expect(next.access_token).toBeTruthy();
  });

  it('a missing token is invalid_request; a wrong secret is invalid_client and revokes nothing', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const missing = await form('/api/oauth2/token/revoke', {}, c);
    expect([missing.status, missing.body.error]).toEqual([400, 'invalid_request']);
    expect(missing.body.error_description).toMatch(/token/);

    const cc = await clientCredentials(c, 'drive:read');
    const wrong = { ...c, clientSecret: `${c.clientSecret}x` };
    const bad = await form('/api/oauth2/token/revoke', { token: cc.access_token }, wrong);
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_client']);
    const anonymous = await form('/api/oauth2/token/revoke', { token: cc.access_token });
    expect([anonymous.status, anonymous.body.error]).toEqual([400, 'invalid_client']);
    expect((await introspect(c, cc.access_token)).active).toBe(true);
  });

  it('a public client revokes its own token with client_id alone', async () => {
    const pub = await seedClient(s, { tenantId: s.demoTenantId, clientType: 'public' });
    const checker = await seedClient(s, { tenantId: s.demoTenantId });
    const t = await codeFlow(s, pub, s.demoAdminToken, 'openid offline_access');
    expect((await introspect(checker, t.refresh_token as string)).active).toBe(true);
    await revoke(pub, t.refresh_token as string); // oauth4webapi None(): client_id in the body, no secret
    expect(await introspect(checker, t.refresh_token as string)).toEqual({ active: false });
    expect(await introspect(checker, t.access_token)).toEqual({ active: false });
    // a public client that sends a secret is refused (it has none to prove)
    const withSecret = await form('/api/oauth2/token/revoke', {
      token: 'x',
      client_id: pub.clientId,
      client_secret: 'x',
    });
    expect([withSecret.status, withSecret.body.error]).toEqual([400, 'invalid_client']);
  });
});

describe('introspection (RFC 7662)', () => {
  it('an active user token shows active, scope, client_id, token_type, exp, iat, sub and username', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const rs = await seedClient(s, { tenantId: s.demoTenantId, name: 'resource server' });
    const before = Math.floor(Date.now() / 1000);
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid profile offline_access');
    const info = await introspect(rs, t.access_token);
    expect(info).toMatchObject({
      active: true,
      scope: 'openid profile offline_access',
      client_id: c.clientId,
      token_type: 'Bearer',
      sub: String(adminUserId),
      username: 'admin',
    });
    expect(info.iat).toBeGreaterThanOrEqual(before - 1);
    expect(info.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 1);
    expect(info.exp).toBe((info.iat as number) + 3600);

    const r = await introspect(rs, t.refresh_token as string);
    expect(r).toMatchObject({ active: true, client_id: c.clientId, sub: String(adminUserId) });
    expect(r.token_type).not.toBe('Bearer');
  });

  it('a client_credentials token has no sub or username', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const cc = await clientCredentials(c, 'drive:read');
    const info = await introspect(c, cc.access_token);
    expect(info).toMatchObject({ active: true, scope: 'drive:read', client_id: c.clientId, token_type: 'Bearer' });
    expect(info).not.toHaveProperty('sub');
    expect(info).not.toHaveProperty('username');
  });

  it('expired, revoked, used-refresh and unknown tokens are {active:false} and nothing more', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const used = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access');
    await refresh(c, used.refresh_token as string);
    const revoked = await clientCredentials(c, 'drive:read');
    await revoke(c, revoked.access_token);
    for (const token of [used.refresh_token as string, revoked.access_token, 'unknown-token']) {
      const res = await form('/api/oauth2/token/introspect', { token }, c);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false });
      expect(res.headers.get('cache-control')).toBe('no-store');
    }

    const live = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access');
    offsetMs = 3601_000; // past the one-hour access token, well within the refresh token's 30 days
    try {
      expect((await form('/api/oauth2/token/introspect', { token: live.access_token }, c)).body).toEqual({
        active: false,
      });
      expect((await introspect(c, live.refresh_token as string)).active).toBe(true);
    } finally {
      offsetMs = 0;
    }
  });

  it('the caller must authenticate as a confidential client', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const cc = await clientCredentials(c, 'drive:read');
    const none = await form('/api/oauth2/token/introspect', { token: cc.access_token });
    expect([none.status, none.body.error]).toEqual([400, 'invalid_client']);
    expect(none.body).not.toHaveProperty('active');

    const pub = await seedClient(s, { tenantId: s.demoTenantId, clientType: 'public' });
    const asPublic = await form('/api/oauth2/token/introspect', { token: cc.access_token, client_id: pub.clientId });
    expect([asPublic.status, asPublic.body.error]).toEqual([400, 'invalid_client']);

    const wrong = await form(
      '/api/oauth2/token/introspect',
      { token: cc.access_token },
      { ...c, clientSecret: 'nope' },
    );
    expect([wrong.status, wrong.body.error]).toEqual([400, 'invalid_client']);

    const missing = await form('/api/oauth2/token/introspect', {}, c);
    expect([missing.status, missing.body.error]).toEqual([400, 'invalid_request']);
  });

  it('a client of another tenant learns nothing about this tenant’s tokens', async () => {
    const a = await seedClient(s, { tenantId: s.demoTenantId });
    const tenantB = await createTenant(s);
    const b = await seedClient(s, { tenantId: tenantB.tenantId });
    const platform = await seedClient(s, { tenantId: null });
    const user = await codeFlow(s, a, s.demoAdminToken, 'openid offline_access');
    const cc = await clientCredentials(a, 'drive:read');
    for (const token of [user.access_token, user.refresh_token as string, cc.access_token]) {
      expect(await introspect(b, token)).toEqual({ active: false });
      expect(await introspect(platform, token)).toEqual({ active: false });
      expect((await introspect(a, token)).active).toBe(true);
    }
    // and the other way round: B's own token is active for B only
    const bToken = await clientCredentials(b, 'drive:read');
    expect((await introspect(b, bToken.access_token)).active).toBe(true);
    expect(await introspect(a, bToken.access_token)).toEqual({ active: false });
  });

  it('tokens of a disabled application, or of a disabled user, are inactive', async () => {
    const rs = await seedClient(s, { tenantId: s.demoTenantId });
    const app = await seedClient(s, { tenantId: s.demoTenantId });
    const cc = await clientCredentials(app, 'drive:read');
    const setApp = (status: 'active' | 'disabled') =>
      s.database.db.update(openApps).set({ status }).where(eq(openApps.id, app.id));
    await setApp('disabled');
    expect(await introspect(rs, cc.access_token)).toEqual({ active: false });
    await setApp('active');
    expect((await introspect(rs, cc.access_token)).active).toBe(true);

    const u = await createUserWithPermissions(s, []);
    const t = await codeFlow(s, app, u.token, 'openid offline_access');
    expect((await introspect(rs, t.access_token)).username).toBe(u.username);
    await s.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, u.userId));
    expect(await introspect(rs, t.access_token)).toEqual({ active: false });
    expect(await introspect(rs, t.refresh_token as string)).toEqual({ active: false });
  });
});
