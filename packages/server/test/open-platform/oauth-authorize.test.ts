import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import { oauthCodes, oauthConsents } from '../../src/modules/open-platform/oauth/tables.ts';
import { sha256 } from '../../src/platform/crypto/digest.ts';
import { call } from '../helpers/app.ts';
import { rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions } from '../helpers/fixtures.ts';
import {
  type OAuthServer,
  type SeededClient,
  seedClient,
  startAuthorization,
  startOAuthServer,
} from './oauth-helpers.ts';

/**
 * The authorization endpoint as the consent page uses it (spec §4.1): GET authorize/info and
 * POST authorize. Errors are RFC 6749 §4.1.2.1 bodies; a redirectUrl only once client and
 * redirect_uri are proven.
 */
let s: OAuthServer;
let c: SeededClient;
let other: SeededClient;
const CB = 'https://client.example/cb';
const CB_WITH_QUERY = 'https://client.example/cb?tenant=7';

beforeAll(async () => {
  s = await startOAuthServer();
  c = await seedClient(s, { tenantId: s.demoTenantId, redirectUris: [CB, CB_WITH_QUERY], name: 'Calendar sync' });
  const tenant = await createTenant(s);
  other = await seedClient(s, { tenantId: tenant.tenantId });
});
afterAll(async () => s?.close());

/** `token` null: not signed in */
const decide = (params: Record<string, string>, token: string | null = s.demoAdminToken) =>
  call(s.app, 'POST', '/api/oauth2/authorize', { ...(token ? { token } : {}), body: params });
const info = (params: Record<string, string>, token: string | null = s.demoAdminToken) =>
  call(s.app, 'GET', `/api/oauth2/authorize/info?${new URLSearchParams(params)}`, token ? { token } : {});

/** Runs `fn` and asserts it wrote no code and no consent. */
async function nothingWritten(fn: () => Promise<void>) {
  const before = [await rowCount(s, oauthCodes), await rowCount(s, oauthConsents)];
  await fn();
  expect([await rowCount(s, oauthCodes), await rowCount(s, oauthConsents)]).toEqual(before);
}

/** The error redirect, read the way a client does: oauth4webapi checks iss and state, then surfaces the error. */
function redirectedError(redirectUrl: string, state: string): oauth.AuthorizationResponseError {
  try {
    oauth.validateAuthResponse(s.as, c.client, new URL(redirectUrl), state);
  } catch (err) {
    if (err instanceof oauth.AuthorizationResponseError) return err;
    throw err;
  }
  throw new Error('the redirect carries no error');
}

describe('approval', () => {
  it('answers data.redirectUrl with code, state and iss that oauth4webapi accepts, and stores the code as its SHA-256', async () => {
    const start = await startAuthorization(c, 'openid profile');
    const res = await decide(start.params);
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().data.redirectUrl);
    expect(`${url.origin}${url.pathname}`).toBe(CB);
    expect(url.searchParams.get('state')).toBe(start.state);
    expect(url.searchParams.get('iss')).toBe(s.issuer);
    const params = oauth.validateAuthResponse(s.as, c.client, url, start.state);
    const code = params.get('code') as string;
    expect(code.length).toBeGreaterThanOrEqual(43);

    const [row] = await s.database.db
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, sha256(code)));
    expect(row).toMatchObject({ appId: c.id, redirectUri: CB, scopes: ['openid', 'profile'], nonce: start.nonce });
    expect(row?.codeChallenge).toBe(start.params.code_challenge);
  });

  it('keeps the query of a registered redirect URI and omits state when none was sent', async () => {
    const start = await startAuthorization(c, 'profile', CB_WITH_QUERY);
    const { state: _state, ...withoutState } = start.params;
    const res = await decide(withoutState);
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json().data.redirectUrl);
    expect(url.searchParams.get('tenant')).toBe('7');
    expect(url.searchParams.has('state')).toBe(false);
    expect(oauth.validateAuthResponse(s.as, c.client, url, oauth.expectNoState).get('code')).toBeTruthy();
  });

  it('needs no permission: any signed-in user of the tenant may authorize an application', async () => {
    const user = await createUserWithPermissions(s, []);
    const start = await startAuthorization(c, 'profile');
    const res = await decide(start.params, user.token);
    expect(res.statusCode, res.body).toBe(200);
    const code = new URL(res.json().data.redirectUrl).searchParams.get('code') as string;
    const [row] = await s.database.db
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, sha256(code)));
    expect(row?.userId).toBe(user.userId);
  });

  it('info shows the client, the scopes with descriptions, requiresPkce and what was granted before', async () => {
    const user = await createUserWithPermissions(s, []);
    const start = await startAuthorization(c, 'openid email');
    const first = await info(start.params, user.token);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().data).toMatchObject({
      client: { clientId: c.clientId, name: 'Calendar sync' },
      redirectUri: CB,
      responseType: 'code',
      scopes: [
        { name: 'openid', description: expect.stringContaining('OpenID') },
        { name: 'email', description: expect.stringContaining('email') },
      ],
      previouslyGranted: [],
      state: start.state,
      requiresPkce: true,
      codeChallengeMethods: ['S256'],
    });
    expect((await decide(start.params, user.token)).statusCode).toBe(200);
    const again = await info((await startAuthorization(c, 'profile')).params, user.token);
    expect([...again.json().data.previouslyGranted].sort()).toEqual(['email', 'openid']);
  });

  it('info takes the query of spec §4.1 without PKCE parameters (requiresPkce tells the page they are needed)', async () => {
    const {
      code_challenge: _c,
      code_challenge_method: _m,
      nonce: _n,
      ...query
    } = (await startAuthorization(c, 'profile')).params;
    const res = await info(query);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.requiresPkce).toBe(true);
  });
});

describe('errors that are not redirected (client or redirect_uri unproven)', () => {
  for (const [name, mutate] of [
    ['an unknown client', (p: Record<string, string>) => ({ ...p, client_id: 'app_does_not_exist' })],
    ['another tenant’s client', (p: Record<string, string>) => ({ ...p, client_id: other.clientId })],
  ] as const) {
    it(`${name} → 400 invalid_client without redirectUrl, nothing written`, async () => {
      const params = mutate((await startAuthorization(c, 'profile')).params);
      await nothingWritten(async () => {
        for (const res of [await decide(params), await info(params)]) {
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
        }
      });
    });
  }

  it('a platform application (no tenant) is for platform users only', async () => {
    const platformApp = await seedClient(s, { tenantId: null });
    const params = (await startAuthorization(platformApp, 'profile')).params;
    await nothingWritten(async () => {
      const res = await decide(params);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
    });
    const ok = await decide(params, s.adminToken);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(new URL(ok.json().data.redirectUrl).searchParams.get('code')).toBeTruthy();
  });

  it('a disabled application → invalid_client', async () => {
    const d = await seedClient(s, { tenantId: s.demoTenantId });
    await s.database.db.update(openApps).set({ status: 'disabled' }).where(eq(openApps.id, d.id));
    const res = await decide((await startAuthorization(d, 'profile')).params);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
  });

  // exact string match only (OAuth 2.1 §2.3.1, RFC 9700 §4.1.1): no prefix, suffix, case or scheme leeway
  for (const uri of [
    'https://client.example/cb/',
    'https://client.example/cb/evil',
    'https://client.example/c',
    'https://client.example/cb?tenant=7&x=1',
    'https://client.example/cb?x=1',
    'https://CLIENT.example/cb',
    'http://client.example/cb',
    'https://client.example/cb#frag',
    'https://client.example.evil.test/cb',
    'https://attacker.test/cb',
  ]) {
    it(`redirect_uri ${uri} → invalid_request without redirectUrl`, async () => {
      const params = { ...(await startAuthorization(c, 'profile')).params, redirect_uri: uri };
      await nothingWritten(async () => {
        for (const res of [await decide(params), await info(params)]) {
          expect(res.statusCode, res.body).toBe(400);
          expect(res.json()).toEqual({
            error: 'invalid_request',
            error_description: 'redirect_uri is not registered for this client',
          });
        }
      });
    });
  }

  it('a missing redirect_uri → invalid_request naming it', async () => {
    const { redirect_uri: _r, ...params } = (await startAuthorization(c, 'profile')).params;
    await nothingWritten(async () => {
      const res = await decide(params);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe('invalid_request');
      expect(res.json().error_description).toMatch(/redirect_uri/);
      expect(res.json().redirectUrl).toBeUndefined();
    });
  });

  it('not signed in → 401 on both endpoints, nothing written', async () => {
    const params = (await startAuthorization(c, 'profile')).params;
    await nothingWritten(async () => {
      for (const res of [await decide(params, null), await info(params, null), await decide(params, 'garbage')]) {
        expect(res.statusCode, res.body).toBe(401);
        expect(res.json().error).toBe('invalid_token');
        expect(res.json().redirectUrl).toBeUndefined();
      }
    });
  });
});

describe('errors redirected to the client (RFC 6749 §4.1.2.1, with state and RFC 9207 iss)', () => {
  async function expectRedirectedError(
    change: (p: Record<string, string>) => Record<string, string>,
    error: string,
    description: string,
    opts: { client?: SeededClient; scope?: string; infoToo?: boolean } = {},
  ) {
    const start = await startAuthorization(opts.client ?? c, opts.scope ?? 'openid profile');
    const params = change(start.params);
    await nothingWritten(async () => {
      const answers = [await decide(params), ...(opts.infoToo === false ? [] : [await info(params)])];
      for (const res of answers) {
        expect(res.statusCode, res.body).toBe(400);
        const body = res.json();
        expect(body.error).toBe(error);
        expect(body.error_description).toBe(description);
        const url = new URL(body.redirectUrl);
        expect(`${url.origin}${url.pathname}`).toBe(CB);
        expect(url.searchParams.get('state')).toBe(start.state);
        expect(url.searchParams.get('iss')).toBe(s.issuer);
        expect(url.searchParams.has('code')).toBe(false);
        const err = redirectedError(body.redirectUrl, start.state);
        expect(err.error).toBe(error);
        expect(err.error_description).toBe(description);
      }
    });
  }

  it('response_type=token → unsupported_response_type', () =>
    expectRedirectedError(
      (p) => ({ ...p, response_type: 'token' }),
      'unsupported_response_type',
      'only response_type=code is supported',
    ));

  // client and redirect_uri are proven, so the client learns of it through the redirect (RFC 6749 §4.1.2.1)
  it('a missing response_type → invalid_request, redirected', () =>
    expectRedirectedError(
      ({ response_type: _r, ...p }: Record<string, string>) => p,
      'invalid_request',
      'response_type is required',
    ));

  it('response_type empty → invalid_request', () =>
    expectRedirectedError((p) => ({ ...p, response_type: '' }), 'invalid_request', 'response_type is required'));

  it('no code_challenge → invalid_request (PKCE is mandatory)', () =>
    expectRedirectedError(
      ({ code_challenge: _c, code_challenge_method: _m, ...p }) => p,
      'invalid_request',
      'code_challenge is required (PKCE with S256)',
      { infoToo: false },
    ));

  it('code_challenge_method=plain → invalid_request', async () => {
    const verifier = oauth.generateRandomCodeVerifier();
    await expectRedirectedError(
      (p) => ({ ...p, code_challenge: verifier, code_challenge_method: 'plain' }),
      'invalid_request',
      'code_challenge_method must be S256',
    );
  });

  it('a challenge without code_challenge_method → invalid_request', () =>
    expectRedirectedError(
      ({ code_challenge_method: _m, ...p }) => p,
      'invalid_request',
      'code_challenge_method is required (S256)',
    ));

  for (const [name, challenge] of [
    ['42 characters', 'a'.repeat(42)],
    ['44 characters', 'a'.repeat(44)],
    ['standard base64 characters', `${'a'.repeat(41)}+/`],
    ['padding', `${'a'.repeat(42)}=`],
  ]) {
    it(`a malformed code_challenge (${name}) → invalid_request`, () =>
      expectRedirectedError(
        (p) => ({ ...p, code_challenge: challenge as string }),
        'invalid_request',
        'code_challenge must be the 43-character base64url SHA-256 of the verifier',
      ));
  }

  it('a scope outside allowedScopes → invalid_scope naming it', () =>
    expectRedirectedError((p) => p, 'invalid_scope', 'scope not allowed for this client: drive:write', {
      scope: 'profile drive:write',
    }));

  it('an unknown scope → invalid_scope naming it', () =>
    expectRedirectedError((p) => p, 'invalid_scope', 'scope not allowed for this client: calendar', {
      scope: 'calendar',
    }));

  it('no scope → invalid_scope', () =>
    expectRedirectedError(({ scope: _s, ...p }) => p, 'invalid_scope', 'scope is required'));

  it('a client not registered for authorization_code → unauthorized_client', async () => {
    const ccOnly = await seedClient(s, {
      tenantId: s.demoTenantId,
      grantTypes: ['client_credentials'],
      redirectUris: [CB],
    });
    await expectRedirectedError(
      (p) => p,
      'unauthorized_client',
      'the client is not allowed to use the authorization_code grant',
      { client: ccOnly },
    );
  });

  it('the user denies → access_denied, no code and no consent', () =>
    expectRedirectedError((p) => ({ ...p, decision: 'deny' }), 'access_denied', 'the user denied the request', {
      infoToo: false,
    }));
});
