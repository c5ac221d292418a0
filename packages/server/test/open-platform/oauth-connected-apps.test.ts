import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthConsents } from '../../src/modules/open-platform/oauth/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions } from '../helpers/fixtures.ts';
import {
  approve,
  clientAuth,
  codeFlow,
  insecure,
  type OAuthServer,
  type SeededClient,
  seedClient,
  startAuthorization,
  startOAuthServer,
} from './oauth-helpers.ts';

/** A user's connected applications (their consents) and disconnecting one (spec §1.1, decision 0009). */
let s: OAuthServer;
let checker: SeededClient;
beforeAll(async () => {
  s = await startOAuthServer();
  checker = await seedClient(s, { tenantId: s.demoTenantId, name: 'resource server' });
});
afterAll(async () => s?.close());

type Connected = {
  appId: number;
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
  lastTokenAt: string | null;
};

async function list(token: string): Promise<Connected[]> {
  const res = await call(s.app, 'GET', '/api/open-platform/connected-apps', { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

const active = async (token: string) =>
  (
    await oauth.processIntrospectionResponse(
      s.as,
      checker.client,
      await oauth.introspectionRequest(s.as, checker.client, clientAuth(checker), token, insecure),
    )
  ).active;

const refreshFails = async (c: SeededClient, token: string) => {
  const res = await oauth.refreshTokenGrantRequest(s.as, c.client, clientAuth(c), token, insecure);
  const err = await oauth.processRefreshTokenResponse(s.as, c.client, res).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  return (err as oauth.ResponseBodyError).error;
};

describe('listing', () => {
  it('after a code flow the user sees the application with the scopes granted, growing with each consent', async () => {
    const u = await createUserWithPermissions(s, []);
    expect(await list(u.token)).toEqual([]);
    const c = await seedClient(s, { tenantId: s.demoTenantId, name: 'Calendar sync' });
    await codeFlow(s, c, u.token, 'openid profile');
    const [entry] = await list(u.token);
    expect(entry).toMatchObject({ appId: c.id, clientId: c.clientId, name: 'Calendar sync' });
    expect([...(entry?.scopes ?? [])].sort()).toEqual(['openid', 'profile']);
    expect(Date.parse(entry?.grantedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(Date.parse(entry?.lastTokenAt ?? '')).toBeGreaterThan(Date.now() - 60_000);

    await codeFlow(s, c, u.token, 'openid email');
    const after = await list(u.token);
    expect(after).toHaveLength(1);
    expect([...(after[0]?.scopes ?? [])].sort()).toEqual(['email', 'openid', 'profile']);
  });

  it('shows only the signed-in user’s own connections', async () => {
    const u = await createUserWithPermissions(s, []);
    const other = await createUserWithPermissions(s, []);
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    await codeFlow(s, c, u.token, 'openid');
    expect((await list(u.token)).map((e) => e.appId)).toEqual([c.id]);
    expect((await list(other.token)).map((e) => e.appId)).not.toContain(c.id);
  });

  it('needs a console sign-in: none, or an OAuth access token, is 401', async () => {
    const res = await call(s.app, 'GET', '/api/open-platform/connected-apps');
    expectError(res, 401, 'auth.unauthenticated');
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid');
    expectError(
      await call(s.app, 'GET', '/api/open-platform/connected-apps', { token: t.access_token }),
      401,
      'auth.invalid_token',
    );
  });
});

describe('disconnecting', () => {
  it('kills the application’s tokens and open codes for this user and removes it from the list', async () => {
    const u = await createUserWithPermissions(s, []);
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const first = await codeFlow(s, c, u.token, 'openid offline_access');
    const second = await codeFlow(s, c, u.token, 'openid offline_access');
    // a code approved but not yet redeemed
    const pending = await startAuthorization(c, 'openid offline_access');
    const callback = await approve(s, u.token, pending.params);
    // the same application for another user is not touched
    const bystander = await createUserWithPermissions(s, []);
    const theirs = await codeFlow(s, c, bystander.token, 'openid offline_access');

    const res = await call(s.app, 'DELETE', `/api/open-platform/connected-apps/${c.id}`, { token: u.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ code: 0, data: null });

    for (const t of [first, second]) {
      expect(await active(t.access_token)).toBe(false);
      expect(await active(t.refresh_token as string)).toBe(false);
      expect(await refreshFails(c, t.refresh_token as string)).toBe('invalid_grant');
    }
    const params = oauth.validateAuthResponse(s.as, c.client, callback, pending.state);
    const redeem = await oauth.authorizationCodeGrantRequest(
      s.as,
      c.client,
      clientAuth(c),
      params,
      pending.params.redirect_uri as string,
      pending.verifier,
      insecure,
    );
    expect(redeem.status).toBe(400);
    expect((await redeem.json()).error).toBe('invalid_grant');
    expect((await list(u.token)).map((e) => e.appId)).not.toContain(c.id);

    expect(await active(theirs.access_token)).toBe(true);
    expect((await list(bystander.token)).map((e) => e.appId)).toContain(c.id);

    // a second disconnect finds nothing to end
    expectError(
      await call(s.app, 'DELETE', `/api/open-platform/connected-apps/${c.id}`, { token: u.token }),
      404,
      'open_platform.connected_app_not_found',
    );
    // authorizing again connects it again
    const again = await codeFlow(s, c, u.token, 'openid');
    expect(await active(again.access_token)).toBe(true);
    expect((await list(u.token)).map((e) => e.appId)).toContain(c.id);
  });

  it('another user, of this tenant or another, cannot disconnect it: 404 and nothing changes', async () => {
    const u = await createUserWithPermissions(s, []);
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const t = await codeFlow(s, c, u.token, 'openid offline_access');
    const sameTenant = await createUserWithPermissions(s, []);
    const tenantB = await createTenant(s);
    const consents = await rowCount(s, oauthConsents);
    for (const token of [sameTenant.token, tenantB.adminToken, s.adminToken]) {
      expectError(
        await call(s.app, 'DELETE', `/api/open-platform/connected-apps/${c.id}`, { token }),
        404,
        'open_platform.connected_app_not_found',
      );
    }
    expect(await rowCount(s, oauthConsents)).toBe(consents);
    expect(await active(t.access_token)).toBe(true);
    expect(await active(t.refresh_token as string)).toBe(true);
    expect((await list(u.token)).map((e) => e.appId)).toContain(c.id);
  });

  it('an unknown id is 404; a malformed one is 400 naming id', async () => {
    const u = await createUserWithPermissions(s, []);
    expectError(
      await call(s.app, 'DELETE', '/api/open-platform/connected-apps/999999', { token: u.token }),
      404,
      'open_platform.connected_app_not_found',
    );
    expectError(
      await call(s.app, 'DELETE', '/api/open-platform/connected-apps/abc', { token: u.token }),
      400,
      'request.validation_failed',
      'id',
    );
    expectError(await call(s.app, 'DELETE', '/api/open-platform/connected-apps/1'), 401, 'auth.unauthenticated');
  });
});
