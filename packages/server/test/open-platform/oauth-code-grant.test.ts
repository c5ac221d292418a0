import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { oauthCodes, oauthTokens } from '../../src/modules/open-platform/oauth/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
import {
  type AuthorizationStart,
  approve,
  authorizeCode,
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
  startAuthorization,
  startOAuthServer,
} from './oauth-helpers.ts';

/** The authorization_code grant at the token endpoint (spec §2.1, §4.1 rule 1; RFC 6749 §4.1.3, RFC 7636). */
const clock = movableClock();
let s: OAuthServer;
let conf: SeededClient;
let pub: SeededClient;
let noRefresh: SeededClient;
let demoAdminId: string;
const CB = 'https://client.example/cb';
const CB2 = 'https://client.example/other-cb';

beforeAll(async () => {
  s = await startOAuthServer({ clock: clock.now });
  conf = await seedClient(s, { tenantId: s.demoTenantId, redirectUris: [CB, CB2] });
  pub = await seedClient(s, {
    tenantId: s.demoTenantId,
    clientType: 'public',
    grantTypes: ['authorization_code', 'refresh_token'],
  });
  noRefresh = await seedClient(s, { tenantId: s.demoTenantId, grantTypes: ['authorization_code'] });
  const me = await s.app.inject({
    method: 'GET',
    url: '/api/auth/me',
    headers: { authorization: `Bearer ${s.demoAdminToken}` },
  });
  demoAdminId = String(me.json().data.user.id);
});
afterAll(async () => s?.close());

type Authorized = Awaited<ReturnType<typeof authorizeCode>>;

/** An authorization whose request parameters (and verifier) the test changes. */
async function authorizeCustom(
  c: SeededClient,
  scope: string,
  change: (start: AuthorizationStart) => Promise<AuthorizationStart> | AuthorizationStart,
): Promise<Authorized> {
  const start = await change(await startAuthorization(c, scope));
  const callback = oauth.validateAuthResponse(
    s.as,
    c.client,
    await approve(s, s.demoAdminToken, start.params),
    start.state,
  );
  return { start, callback, code: callback.get('code') as string };
}

/** The token request a standard client sends for an authorized code. */
function redeem(
  c: SeededClient,
  a: Authorized,
  opts: { auth?: oauth.ClientAuth; verifier?: string; redirectUri?: string } = {},
): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(
    s.as,
    c.client,
    opts.auth ?? clientAuth(c),
    a.callback,
    opts.redirectUri ?? a.start.params.redirect_uri ?? CB,
    opts.verifier ?? a.start.verifier,
    insecure,
  );
}

/** oauth4webapi's processing; with openid it validates the id_token and its nonce. */
const finish = (c: SeededClient, a: Authorized, res: Response, requireIdToken = false) =>
  oauth.processAuthorizationCodeResponse(
    s.as,
    c.client,
    res,
    a.start.params.scope?.split(' ').includes('openid') ? { expectedNonce: a.start.nonce, requireIdToken } : {},
  );

/** The form a client would send for `a`, for requests oauth4webapi cannot express. */
const form = (c: SeededClient, a: Authorized, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code: a.code,
  redirect_uri: a.start.params.redirect_uri ?? CB,
  code_verifier: a.start.verifier,
  client_id: c.clientId,
  ...extra,
});

describe('success', () => {
  it('client_secret_basic: tokens, a refresh token for offline_access, an id_token oauth4webapi validates (nonce), no-store', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'openid profile offline_access drive:read');
    const res = await redeem(conf, a);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const t = await finish(conf, a, res, true);
    expect(t.token_type).toBe('bearer');
    expect(t.expires_in).toBe(3600);
    expect(t.scope).toBe('openid profile offline_access drive:read');
    expect(t.refresh_token).toBeTruthy();
    const claims = oauth.getValidatedIdTokenClaims(t);
    expect(claims).toMatchObject({ iss: s.issuer, aud: conf.clientId, sub: demoAdminId, nonce: a.start.nonce });
    expect(await isActive(s, conf, t.access_token)).toBe(true);
  });

  it('client_secret_post works the same', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const t = await finish(conf, a, await redeem(conf, a, { auth: clientAuth(conf, 'post') }));
    expect(t.scope).toBe('profile');
  });

  it('a public client authenticates with PKCE alone (client_id, no secret)', async () => {
    const a = await authorizeCode(s, pub, s.demoAdminToken, 'openid offline_access');
    const t = await finish(pub, a, await redeem(pub, a, { auth: oauth.None() }), true);
    expect(t.refresh_token).toBeTruthy();
    expect(oauth.getValidatedIdTokenClaims(t)?.aud).toBe(pub.clientId);
  });

  it('verifiers of exactly 43 and 128 characters are accepted (RFC 7636 §4.1)', async () => {
    for (const verifier of ['a'.repeat(43), `${'A1-._~'.repeat(21)}xy`]) {
      const a = await authorizeCustom(conf, 'profile', async (start) => ({
        ...start,
        verifier,
        params: { ...start.params, code_challenge: await oauth.calculatePKCECodeChallenge(verifier) },
      }));
      expect((await finish(conf, a, await redeem(conf, a))).access_token).toBeTruthy();
    }
  });

  it('parameters of other grants are ignored (scope, refresh_token)', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const r = await rawTokenRequest(s, form(conf, a, { scope: 'drive:read', refresh_token: 'x' }), {
      authorization: basicHeader(conf.clientId, conf.clientSecret as string),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.scope).toBe('profile');
  });
});

describe('refresh token and id_token only when earned', () => {
  it('no offline_access → no refresh token', async () => {
    const t = await codeFlow(s, conf, s.demoAdminToken, 'openid profile');
    expect(t.refresh_token).toBeUndefined();
    expect(t.id_token).toBeTruthy();
  });

  it('offline_access but the application does not allow refresh_token → no refresh token', async () => {
    const a = await authorizeCode(s, noRefresh, s.demoAdminToken, 'profile offline_access');
    const t = await finish(noRefresh, a, await redeem(noRefresh, a));
    expect(t.scope).toBe('profile offline_access');
    expect(t.refresh_token).toBeUndefined();
  });

  it('no openid → no id_token', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile offline_access');
    const t = await finish(conf, a, await redeem(conf, a));
    expect(t.id_token).toBeUndefined();
    expect(t.refresh_token).toBeTruthy();
  });

  it('openid without a nonce → an id_token without nonce, still validated', async () => {
    const a = await authorizeCustom(conf, 'openid', ({ params: { nonce: _n, ...params }, ...start }) => ({
      ...start,
      params,
    }));
    const t = await oauth.processAuthorizationCodeResponse(s.as, conf.client, await redeem(conf, a), {
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(t);
    expect(claims?.sub).toBe(demoAdminId);
    expect(claims?.nonce).toBeUndefined();
  });
});

describe('client authentication', () => {
  it('a public client that sends a secret → invalid_client', async () => {
    const a = await authorizeCode(s, pub, s.demoAdminToken, 'profile');
    for (const auth of [oauth.ClientSecretPost('made-up'), oauth.ClientSecretBasic('made-up')]) {
      await expectOAuthError(
        finish(pub, a, await redeem(pub, a, { auth })),
        'invalid_client',
        'a public client must not send a client secret',
      );
    }
    // the code was not spent by the refused attempts
    expect((await finish(pub, a, await redeem(pub, a, { auth: oauth.None() }))).access_token).toBeTruthy();
  });

  it('Basic and client_secret together → invalid_request; the code survives', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const r = await rawTokenRequest(s, form(conf, a, { client_secret: conf.clientSecret as string }), {
      authorization: basicHeader(conf.clientId, conf.clientSecret as string),
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'invalid_request',
      error_description: 'use one client authentication method, not both Basic and client_secret',
    });
    expect((await finish(conf, a, await redeem(conf, a))).access_token).toBeTruthy();
  });

  it('a body client_id that differs from the Basic one → invalid_request', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const r = await rawTokenRequest(s, form(conf, a, { client_id: pub.clientId }), {
      authorization: basicHeader(conf.clientId, conf.clientSecret as string),
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'invalid_request',
      error_description: 'client_id does not match the Basic credentials',
    });
  });

  it('a wrong secret, an unknown client, a confidential client without secret → invalid_client with one description', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    await expectOAuthError(
      finish(conf, a, await redeem(conf, a, { auth: oauth.ClientSecretBasic('wrong-secret') })),
      'invalid_client',
      'client authentication failed',
    );
    await expectOAuthError(
      finish(conf, a, await redeem(conf, a, { auth: oauth.ClientSecretPost('wrong-secret') })),
      'invalid_client',
      'client authentication failed',
    );
    await expectOAuthError(
      finish(conf, a, await redeem(conf, a, { auth: oauth.None() })),
      'invalid_client',
      'client authentication failed',
    );
    const unknown = { ...conf, client: { client_id: 'app_unknown' } };
    await expectOAuthError(
      finish(unknown, a, await redeem(unknown, a)),
      'invalid_client',
      'client authentication failed',
    );
    const none = await rawTokenRequest(s, { grant_type: 'authorization_code', code: a.code });
    expect(none.body).toEqual({ error: 'invalid_client', error_description: 'client_id is required' });
  });

  it('a disabled application → invalid_client, nothing issued', async () => {
    const d = await seedClient(s, { tenantId: s.demoTenantId });
    const a = await authorizeCode(s, d, s.demoAdminToken, 'profile');
    await changeApp(s, d, { status: 'disabled' });
    const before = await rowCount(s, oauthTokens);
    await expectOAuthError(finish(d, a, await redeem(d, a)), 'invalid_client', 'client authentication failed');
    expect(await rowCount(s, oauthTokens)).toBe(before);
  });

  it('a client not registered for authorization_code → unauthorized_client', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const ccOnly = await seedClient(s, { tenantId: s.demoTenantId, grantTypes: ['client_credentials'] });
    await expectOAuthError(
      finish(ccOnly, a, await redeem(ccOnly, a)),
      'unauthorized_client',
      'the client is not allowed to use the authorization_code grant',
    );
  });
});

describe('invalid requests and grants (nothing issued, the code not spent)', () => {
  /** Asserts a refusal issued no token and left the code usable by its client. */
  async function refusedThenUsable(a: Authorized, refuse: () => Promise<unknown>) {
    const before = await rowCount(s, oauthTokens);
    await refuse();
    expect(await rowCount(s, oauthTokens)).toBe(before);
    expect((await finish(conf, a, await redeem(conf, a))).access_token).toBeTruthy();
  }

  it('a PKCE verifier that does not match → invalid_grant', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    await refusedThenUsable(a, async () =>
      expectOAuthError(
        finish(conf, a, await redeem(conf, a, { verifier: oauth.generateRandomCodeVerifier() })),
        'invalid_grant',
        'PKCE verification failed',
      ),
    );
  });

  for (const [name, verifier] of [
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a character outside the unreserved set', `${'a'.repeat(42)}+`],
    ['a space', `${'a'.repeat(21)} ${'a'.repeat(21)}`],
  ]) {
    it(`a code_verifier with ${name} → invalid_request`, async () => {
      const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
      await refusedThenUsable(a, async () => {
        const r = await rawTokenRequest(s, form(conf, a, { code_verifier: verifier as string }), {
          authorization: basicHeader(conf.clientId, conf.clientSecret as string),
        });
        expect(r.status).toBe(400);
        expect(r.headers.get('cache-control')).toBe('no-store');
        expect(r.body).toEqual({
          error: 'invalid_request',
          error_description: 'code_verifier must be 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]',
        });
      });
    });
  }

  it('missing code, redirect_uri or code_verifier → invalid_request naming it', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    await refusedThenUsable(a, async () => {
      for (const field of ['code', 'redirect_uri', 'code_verifier']) {
        const body: Record<string, string> = form(conf, a);
        delete body[field];
        const r = await rawTokenRequest(s, body, {
          authorization: basicHeader(conf.clientId, conf.clientSecret as string),
        });
        expect(r.status).toBe(400);
        expect(r.body).toEqual({ error: 'invalid_request', error_description: `${field} is required` });
      }
    });
  });

  it('a redirect_uri other than the authorization request’s (even a registered one) → invalid_grant', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    await refusedThenUsable(a, async () =>
      expectOAuthError(
        finish(conf, a, await redeem(conf, a, { redirectUri: CB2 })),
        'invalid_grant',
        'redirect_uri does not match the authorization request',
      ),
    );
  });

  it('the code of another client → invalid_grant, described like an unknown code', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const thief = await seedClient(s, { tenantId: s.demoTenantId });
    await refusedThenUsable(a, async () => {
      await expectOAuthError(
        finish(thief, a, await redeem(thief, a)),
        'invalid_grant',
        'authorization code is invalid',
      );
      const r = await rawTokenRequest(s, form(conf, a, { code: 'not-a-code' }), {
        authorization: basicHeader(conf.clientId, conf.clientSecret as string),
      });
      expect(r.body).toEqual({ error: 'invalid_grant', error_description: 'authorization code is invalid' });
    });
  });

  it('an expired code → invalid_grant (60 s lifetime: 59 s is fine, 61 s is not)', async () => {
    const fresh = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    const stale = await authorizeCode(s, conf, s.demoAdminToken, 'profile');
    try {
      clock.advance(59);
      expect((await finish(conf, fresh, await redeem(conf, fresh))).access_token).toBeTruthy();
      clock.advance(2);
      await expectOAuthError(
        finish(conf, stale, await redeem(conf, stale)),
        'invalid_grant',
        'authorization code has expired',
      );
    } finally {
      clock.reset();
    }
  });

  it('the user who approved was disabled since → invalid_grant', async () => {
    const user = await createUserWithPermissions(s, []);
    const a = await authorizeCode(s, conf, user.token, 'profile');
    await s.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, user.userId));
    await expectOAuthError(
      finish(conf, a, await redeem(conf, a)),
      'invalid_grant',
      'the user who granted access is disabled or gone',
    );
  });
});

describe('single use', () => {
  it('a reused code → invalid_grant, and every token of the first redemption is revoked (RFC 6749 §4.1.2)', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'openid offline_access drive:read');
    const first = await finish(conf, a, await redeem(conf, a));
    // a rotation before the reuse: its tokens are of the same grant and go too
    const rotated = await oauth.processRefreshTokenResponse(
      s.as,
      conf.client,
      await oauth.refreshTokenGrantRequest(
        s.as,
        conf.client,
        clientAuth(conf),
        first.refresh_token as string,
        insecure,
      ),
    );
    expect(await isActive(s, conf, rotated.access_token)).toBe(true);
    expect(await isActive(s, conf, rotated.refresh_token as string)).toBe(true);

    await expectOAuthError(
      finish(conf, a, await redeem(conf, a)),
      'invalid_grant',
      'authorization code has already been used',
    );
    for (const token of [first.access_token, rotated.access_token, rotated.refresh_token as string]) {
      expect(await isActive(s, conf, token)).toBe(false);
    }
    await expectOAuthError(
      oauth.processRefreshTokenResponse(
        s.as,
        conf.client,
        await oauth.refreshTokenGrantRequest(
          s.as,
          conf.client,
          clientAuth(conf),
          rotated.refresh_token as string,
          insecure,
        ),
      ),
      'invalid_grant',
      'refresh token is invalid, expired or revoked',
    );
    // the access token no longer opens UserInfo either
    const ui = await fetch(`${s.issuer}/api/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${first.access_token}` },
    });
    expect(ui.status).toBe(401);
  });

  it(`concurrent redemptions of one code: exactly one succeeds`, async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'profile offline_access');
    const before = await rowCount(s, oauthTokens);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        rawTokenRequest(s, form(conf, a), { authorization: basicHeader(conf.clientId, conf.clientSecret as string) }),
      ),
    );
    const won = answers.filter((r) => r.status === 200);
    const lost = answers.filter((r) => r.status !== 200);
    expect(won).toHaveLength(1);
    expect(lost.map((r) => r.body)).toEqual(
      Array(4).fill({ error: 'invalid_grant', error_description: 'authorization code has already been used' }),
    );
    // one access and one refresh token were written, never more
    expect(await rowCount(s, oauthTokens)).toBe(before + 2);
    // Each losing request presented a code that was, by then, used: that is a reuse, and RFC 6749
    // §4.1.2 revokes what the code issued, so the winner's tokens end up revoked too.
    const winner = won[0]?.body as { access_token: string; refresh_token: string };
    expect(await isActive(s, conf, winner.access_token)).toBe(false);
    expect(await isActive(s, conf, winner.refresh_token)).toBe(false);
  });
});

describe('storage', () => {
  it('codes and tokens are stored only as SHA-256 digests: no row holds a plaintext value', async () => {
    const a = await authorizeCode(s, conf, s.demoAdminToken, 'openid offline_access drive:read');
    const t = await finish(conf, a, await redeem(conf, a));
    const refreshed = await oauth.processRefreshTokenResponse(
      s.as,
      conf.client,
      await oauth.refreshTokenGrantRequest(s.as, conf.client, clientAuth(conf), t.refresh_token as string, insecure),
    );
    const cc = await oauth.processClientCredentialsResponse(
      s.as,
      conf.client,
      await oauth.clientCredentialsGrantRequest(s.as, conf.client, clientAuth(conf), {}, insecure),
    );
    const secrets = [
      a.code,
      t.access_token,
      t.refresh_token,
      refreshed.access_token,
      refreshed.refresh_token,
      cc.access_token,
    ];
    const dump = JSON.stringify([
      await s.database.db.select().from(oauthCodes),
      await s.database.db.select().from(oauthTokens),
    ]);
    for (const secret of secrets) {
      expect(secret).toBeTruthy();
      expect(dump).not.toContain(secret as string);
      expect(dump).toContain(sha256(secret as string));
    }
  });
});
