import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { oauthTokens } from '../../src/modules/open-platform/oauth/tables.ts';
import { rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import {
  basicHeader,
  changeApp,
  clientAuth,
  codeFlow,
  expectOAuthError,
  insecure,
  isActive,
  movableClock,
  type OAuthServer,
  rawTokenRequest,
  type SeededClient,
  seedClient,
  startOAuthServer,
} from './oauth-helpers.ts';

/**
 * refresh_token (spec §2.1, §4.1 rule 3, §7.2; RFC 6749 §6, RFC 9700 §4.14.2): rotation within
 * a token family, and a used refresh token presented again revokes the whole family.
 */
const clock = movableClock();
let s: OAuthServer;
let conf: SeededClient;
let pub: SeededClient;
const SCOPE = 'openid profile offline_access drive:read';
const REFRESH_TTL = 600;

beforeAll(async () => {
  s = await startOAuthServer({ clock: clock.now, env: { OAUTH_REFRESH_TOKEN_TTL_SECONDS: String(REFRESH_TTL) } });
  conf = await seedClient(s, { tenantId: s.demoTenantId });
  pub = await seedClient(s, {
    tenantId: s.demoTenantId,
    clientType: 'public',
    grantTypes: ['authorization_code', 'refresh_token'],
  });
});
afterAll(async () => s?.close());

const refreshRequest = (c: SeededClient, token: string, opts: { scope?: string; auth?: oauth.ClientAuth } = {}) =>
  oauth.refreshTokenGrantRequest(s.as, c.client, opts.auth ?? clientAuth(c), token, {
    ...insecure,
    ...(opts.scope ? { additionalParameters: { scope: opts.scope } } : {}),
  });
const refresh = async (c: SeededClient, token: string, opts: { scope?: string; auth?: oauth.ClientAuth } = {}) =>
  oauth.processRefreshTokenResponse(s.as, c.client, await refreshRequest(c, token, opts));

const REPLAYED = 'refresh token was already used; every token of its grant is revoked';
const INVALID = 'refresh token is invalid, expired or revoked';

/** Whether each token is live, asked through introspection. */
const liveness = (tokens: (string | undefined)[]) => Promise.all(tokens.map((t) => isActive(s, conf, t as string)));

describe('rotation', () => {
  it('each refresh answers a new access and refresh token of the same grant; the used one stops being live', async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const res = await refreshRequest(conf, t0.refresh_token as string);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const t1 = await oauth.processRefreshTokenResponse(s.as, conf.client, res);
    expect(t1.scope).toBe(SCOPE);
    expect(t1.refresh_token).toBeTruthy();
    expect(t1.refresh_token).not.toBe(t0.refresh_token);
    expect(t1.access_token).not.toBe(t0.access_token);
    // openid: a fresh id_token for the same subject and audience (OIDC Core §12.2), validated by oauth4webapi
    const claims = oauth.getValidatedIdTokenClaims(t1);
    expect(claims?.sub).toBe(oauth.getValidatedIdTokenClaims(t0)?.sub);
    expect(claims?.aud).toBe(conf.clientId);

    const t2 = await refresh(conf, t1.refresh_token as string);
    expect(t2.refresh_token).not.toBe(t1.refresh_token);
    // used refresh tokens are dead; the newest pair lives
    expect(await liveness([t0.refresh_token, t1.refresh_token, t2.refresh_token, t2.access_token])).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('a public client refreshes with client_id alone and rotates too', async () => {
    const t0 = await codeFlow(s, pub, s.demoAdminToken, 'offline_access drive:read');
    const t1 = await refresh(pub, t0.refresh_token as string, { auth: oauth.None() });
    expect(t1.refresh_token).toBeTruthy();
    expect(t1.refresh_token).not.toBe(t0.refresh_token);
    await expectOAuthError(
      refresh(pub, t1.refresh_token as string, { auth: oauth.ClientSecretPost('made-up') }),
      'invalid_client',
      'a public client must not send a client secret',
    );
  });

  it('no refresh_token parameter → invalid_request', async () => {
    const r = await rawTokenRequest(
      s,
      { grant_type: 'refresh_token' },
      {
        authorization: basicHeader(conf.clientId, conf.clientSecret as string),
      },
    );
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_request', error_description: 'refresh_token is required' });
  });
});

describe('replay', () => {
  it('a used refresh token presented again → invalid_grant, and the whole family is revoked, newest tokens included', async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const t1 = await refresh(conf, t0.refresh_token as string);
    const t2 = await refresh(conf, t1.refresh_token as string);
    expect(await liveness([t0.access_token, t1.access_token, t2.access_token, t2.refresh_token])).toEqual([
      true,
      true,
      true,
      true,
    ]);

    await expectOAuthError(refresh(conf, t1.refresh_token as string), 'invalid_grant', REPLAYED);
    expect(await liveness([t0.access_token, t1.access_token, t2.access_token, t2.refresh_token])).toEqual([
      false,
      false,
      false,
      false,
    ]);
    // the newest refresh token, never used, is refused as revoked
    await expectOAuthError(refresh(conf, t2.refresh_token as string), 'invalid_grant', INVALID);
  });

  it('another family of the same user and app is untouched', async () => {
    const a = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const b = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    await refresh(conf, a.refresh_token as string);
    await expectOAuthError(refresh(conf, a.refresh_token as string), 'invalid_grant', REPLAYED);
    expect(await liveness([b.access_token, b.refresh_token])).toEqual([true, true]);
  });

  it(`concurrent use of one refresh token: exactly one 200, the others invalid_grant`, async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const before = await rowCount(s, oauthTokens);
    const form = { grant_type: 'refresh_token', refresh_token: t0.refresh_token as string };
    const headers = { authorization: basicHeader(conf.clientId, conf.clientSecret as string) };
    const answers = await Promise.all(Array.from({ length: 5 }, () => rawTokenRequest(s, form, headers)));
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((r) => r.status !== 200).map((r) => r.body)).toEqual(
      Array(4).fill({ error: 'invalid_grant', error_description: REPLAYED }),
    );
    // exactly one successor pair was written
    expect(await rowCount(s, oauthTokens)).toBe(before + 2);
    // What we observe, and what spec §4.1 rule 3 implies: each loser presented a refresh token
    // that the winner had already used, which is a replay, so the family is revoked — the winner's
    // brand-new tokens included. A client racing itself has to authorize again; an attacker racing
    // the client gains nothing. The losers only learn they lost after the winner committed, so
    // the revocation always comes after (never before) the winner's tokens exist.
    const winner = won[0]?.body as { access_token: string; refresh_token: string };
    expect(await liveness([winner.access_token, winner.refresh_token, t0.access_token])).toEqual([false, false, false]);
    await expectOAuthError(refresh(conf, winner.refresh_token), 'invalid_grant', INVALID);
  });
});

describe('scope', () => {
  it('a narrower scope narrows the new access token only; the refresh token keeps the original grant', async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const narrow = await refresh(conf, t0.refresh_token as string, { scope: 'drive:read' });
    expect(narrow.scope).toBe('drive:read');
    expect(narrow.id_token).toBeUndefined();
    const info = await oauth.processIntrospectionResponse(
      s.as,
      conf.client,
      await oauth.introspectionRequest(s.as, conf.client, clientAuth(conf), narrow.access_token, insecure),
    );
    expect(info.scope).toBe('drive:read');
    const full = await refresh(conf, narrow.refresh_token as string);
    expect(full.scope).toBe(SCOPE);
  });

  it('a wider scope → invalid_scope naming the extra scope; the refresh token is not spent', async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, 'offline_access drive:read');
    await expectOAuthError(
      refresh(conf, t0.refresh_token as string, { scope: 'drive:read email' }),
      'invalid_scope',
      'scope exceeds the original grant: email',
    );
    expect((await refresh(conf, t0.refresh_token as string)).scope).toBe('offline_access drive:read');
  });
});

describe('refused', () => {
  it('an app that no longer allows authorization_code and refresh_token → unauthorized_client; the token is not spent', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const t0 = await codeFlow(s, c, s.demoAdminToken, 'offline_access drive:read');
    const setGrants = (grantTypes: ('authorization_code' | 'client_credentials' | 'refresh_token')[]) =>
      changeApp(s, c, { grantTypes });

    await setGrants(['authorization_code', 'client_credentials']);
    await expectOAuthError(
      refresh(c, t0.refresh_token as string),
      'unauthorized_client',
      'the client is not allowed to use the refresh_token grant',
    );
    await setGrants(['refresh_token', 'client_credentials']);
    await expectOAuthError(
      refresh(c, t0.refresh_token as string),
      'unauthorized_client',
      'the client is not allowed to use the authorization_code grant',
    );
    await setGrants(['authorization_code', 'refresh_token']);
    expect((await refresh(c, t0.refresh_token as string)).access_token).toBeTruthy();
  });

  it('another client’s refresh token, an access token, an unknown value → invalid_grant alike; nothing revoked', async () => {
    const t0 = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const thief = await seedClient(s, { tenantId: s.demoTenantId });
    await expectOAuthError(refresh(thief, t0.refresh_token as string), 'invalid_grant', INVALID);
    await expectOAuthError(refresh(conf, t0.access_token), 'invalid_grant', INVALID);
    await expectOAuthError(refresh(conf, 'not-a-token'), 'invalid_grant', INVALID);
    expect(await liveness([t0.access_token, t0.refresh_token])).toEqual([true, true]);
    expect((await refresh(conf, t0.refresh_token as string)).access_token).toBeTruthy();
  });

  it(`an expired refresh token → invalid_grant (${REFRESH_TTL} s lifetime)`, async () => {
    const fresh = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    const stale = await codeFlow(s, conf, s.demoAdminToken, SCOPE);
    try {
      clock.advance(REFRESH_TTL - 1);
      expect((await refresh(conf, fresh.refresh_token as string)).access_token).toBeTruthy();
      clock.advance(2);
      await expectOAuthError(refresh(conf, stale.refresh_token as string), 'invalid_grant', INVALID);
    } finally {
      clock.reset();
    }
  });

  it('the user who granted access is disabled → invalid_grant, nothing issued', async () => {
    const user = await createUserWithPermissions(s, []);
    const t0 = await codeFlow(s, conf, user.token, SCOPE);
    await s.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, user.userId));
    const before = await rowCount(s, oauthTokens);
    await expectOAuthError(
      refresh(conf, t0.refresh_token as string),
      'invalid_grant',
      'the user who granted access is disabled or gone',
    );
    expect(await rowCount(s, oauthTokens)).toBe(before);
  });

  it('a disabled application → invalid_client', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const t0 = await codeFlow(s, c, s.demoAdminToken, 'offline_access drive:read');
    await changeApp(s, c, { status: 'disabled' });
    await expectOAuthError(refresh(c, t0.refresh_token as string), 'invalid_client', 'client authentication failed');
  });
});
