import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthTokens } from '../../src/modules/open-platform/oauth/tables.ts';
import { rowCount } from '../helpers/assert.ts';
import {
  basicHeader,
  clientAuth,
  expectOAuthError,
  insecure,
  type OAuthServer,
  rawPost,
  rawTokenRequest,
  type SeededClient,
  seedClient,
  startOAuthServer,
} from './oauth-helpers.ts';

/**
 * client_credentials (spec §2.1, §4.1 rule 2; RFC 6749 §4.4) and what the token endpoint refuses
 * before any grant runs (RFC 6749 §3.2, §5.2).
 */
let s: OAuthServer;
let c: SeededClient;
let basic: Record<string, string>;

beforeAll(async () => {
  s = await startOAuthServer();
  c = await seedClient(s, {
    tenantId: s.demoTenantId,
    allowedScopes: ['openid', 'profile', 'offline_access', 'drive:read', 'drive:write'],
  });
  basic = { authorization: basicHeader(c.clientId, c.clientSecret as string) };
});
afterAll(async () => s?.close());

const request = (client: SeededClient, params: Record<string, string>, auth = clientAuth(client)) =>
  oauth.clientCredentialsGrantRequest(s.as, client.client, auth, params, insecure);
const processed = async (client: SeededClient, res: Response | Promise<Response>) =>
  oauth.processClientCredentialsResponse(s.as, client.client, await res);

/** Runs `fn` and asserts no token row was written. */
async function nothingIssued(fn: () => Promise<unknown>) {
  const before = await rowCount(s, oauthTokens);
  await fn();
  expect(await rowCount(s, oauthTokens)).toBe(before);
}

describe('success', () => {
  it('a requested scope: an access token acting for the app, never a refresh token or id_token, no-store', async () => {
    const res = await request(c, { scope: 'drive:read' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const t = await processed(c, res);
    expect(t.token_type).toBe('bearer');
    expect(t.scope).toBe('drive:read');
    expect(t.expires_in).toBe(3600);
    expect(t.refresh_token).toBeUndefined();
    expect(t.id_token).toBeUndefined();
    const info = await oauth.processIntrospectionResponse(
      s.as,
      c.client,
      await oauth.introspectionRequest(s.as, c.client, clientAuth(c), t.access_token, insecure),
    );
    expect(info).toMatchObject({ active: true, scope: 'drive:read', client_id: c.clientId });
    expect(info.sub).toBeUndefined();
  });

  it('no scope: the allowed scopes that need no user (identity scopes left out)', async () => {
    const t = await processed(c, request(c, {}));
    expect(t.scope).toBe('drive:read drive:write');
    expect(t.refresh_token).toBeUndefined();
  });

  it('client_secret_post works too; duplicates in scope collapse', async () => {
    const t = await processed(c, request(c, { scope: 'drive:write drive:write' }, clientAuth(c, 'post')));
    expect(t.scope).toBe('drive:write');
  });

  it('an app with offline_access still gets no refresh token', async () => {
    const r = await rawTokenRequest(s, { grant_type: 'client_credentials', scope: 'drive:read' }, basic);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
  });

  it('parameters of other grants are ignored (code, code_verifier, redirect_uri, refresh_token)', async () => {
    const r = await rawTokenRequest(
      s,
      {
        grant_type: 'client_credentials',
        scope: 'drive:read',
        code: 'garbage',
        code_verifier: 'short',
        redirect_uri: 'https://attacker.test/',
        refresh_token: 'garbage',
      },
      basic,
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.scope).toBe('drive:read');
  });
});

describe('refused', () => {
  it('a public client → unauthorized_client', async () => {
    const pub = await seedClient(s, { tenantId: s.demoTenantId, clientType: 'public' });
    await nothingIssued(() =>
      expectOAuthError(
        processed(pub, request(pub, { scope: 'drive:read' }, oauth.None())),
        'unauthorized_client',
        'client_credentials is for confidential clients only',
      ),
    );
  });

  it('an app not registered for client_credentials → unauthorized_client', async () => {
    const codeOnly = await seedClient(s, {
      tenantId: s.demoTenantId,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    await nothingIssued(() =>
      expectOAuthError(
        processed(codeOnly, request(codeOnly, { scope: 'drive:read' })),
        'unauthorized_client',
        'the client is not allowed to use the client_credentials grant',
      ),
    );
  });

  for (const [scope, refused] of [
    ['drive:admin', 'drive:admin'],
    ['drive:read openid', 'openid'],
    ['offline_access', 'offline_access'],
    ['profile drive:read email', 'profile email'],
  ]) {
    it(`scope "${scope}" → invalid_scope naming ${refused}`, () =>
      nothingIssued(() =>
        expectOAuthError(
          processed(c, request(c, { scope: scope as string })),
          'invalid_scope',
          `scope not allowed for this client: ${refused}`,
        ),
      ));
  }

  it('a malformed scope → invalid_scope', () =>
    nothingIssued(() =>
      expectOAuthError(processed(c, request(c, { scope: 'drive:read "x"' })), 'invalid_scope', 'scope is malformed'),
    ));

  it('no scope and nothing but identity scopes allowed → invalid_scope', async () => {
    const idOnly = await seedClient(s, { tenantId: s.demoTenantId, allowedScopes: ['openid', 'profile'] });
    await expectOAuthError(
      processed(idOnly, request(idOnly, {})),
      'invalid_scope',
      'the client has no scopes it may request',
    );
  });

  it('a wrong secret → invalid_client', () =>
    nothingIssued(() =>
      expectOAuthError(
        processed(c, request(c, {}, oauth.ClientSecretBasic('not-the-secret'))),
        'invalid_client',
        'client authentication failed',
      ),
    ));

  for (const grant of ['password', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code']) {
    it(`grant_type ${grant} → unsupported_grant_type`, () =>
      nothingIssued(() =>
        expectOAuthError(
          oauth
            .genericTokenEndpointRequest(
              s.as,
              c.client,
              clientAuth(c),
              grant,
              { username: 'a', password: 'b' },
              insecure,
            )
            .then((res) => oauth.processGenericTokenEndpointResponse(s.as, c.client, res)),
          'unsupported_grant_type',
          `grant_type ${grant} is not supported`,
        ),
      ));
  }

  it('no grant_type → invalid_request', async () => {
    const r = await rawTokenRequest(s, { scope: 'drive:read' }, basic);
    expect(r.status).toBe(400);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({ error: 'invalid_request', error_description: 'grant_type is required' });
  });

  for (const [name, body] of [
    ['grant_type', 'grant_type=client_credentials&grant_type=client_credentials'],
    ['scope', 'grant_type=client_credentials&scope=drive:read&scope=drive:write'],
    ['client_id', `grant_type=client_credentials&client_id=x&client_id=y`],
  ]) {
    it(`a repeated ${name} → invalid_request naming it (RFC 6749 §3.2)`, () =>
      nothingIssued(async () => {
        const r = await rawTokenRequest(s, body as string, basic);
        expect(r.status).toBe(400);
        expect(r.body.error).toBe('invalid_request');
        expect(r.body.error_description).toMatch(new RegExp(`^${name}\\b`));
      }));
  }

  it('a JSON body → invalid_request; the token endpoint takes forms only', () =>
    nothingIssued(async () => {
      const r = await rawTokenRequest(s, JSON.stringify({ grant_type: 'client_credentials', scope: 'drive:read' }), {
        ...basic,
        'content-type': 'application/json',
      });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'invalid_request',
        error_description: 'The request body must be application/x-www-form-urlencoded',
      });
    }));

  it('no body at all → invalid_request', () =>
    nothingIssued(async () => {
      const res = await fetch(`${s.issuer}/api/oauth2/token`, { method: 'POST', headers: basic });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }));

  it('a body of another media type → an OAuth invalid_request, not the envelope error', async () => {
    const r = await rawPost(s, '/api/oauth2/token', 'grant_type=client_credentials', {
      ...basic,
      'content-type': 'application/xml',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(typeof r.body.error_description).toBe('string');
  });
});
