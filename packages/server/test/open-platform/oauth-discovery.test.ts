import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { count } from 'drizzle-orm';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthSigningKeys } from '../../src/modules/open-platform/oauth/tables.ts';
import { call, createTestApp, createTestStore } from '../helpers/app.ts';
import { clientAuth, codeFlow, insecure, type OAuthServer, seedClient, startOAuthServer } from './oauth-helpers.ts';

/**
 * Discovery (RFC 8414, OpenID Connect Discovery 1.0) and the id_token signing keys: a standard
 * client configures itself from the metadata alone and verifies id_tokens with the JWKS.
 */
let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});
afterAll(async () => s?.close());

const getJson = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('metadata', () => {
  it('both well-known documents serve the same metadata: issuer = PUBLIC_BASE_URL, absolute endpoints', async () => {
    const as = await getJson(`${s.issuer}/.well-known/oauth-authorization-server`);
    const oidc = await getJson(`${s.issuer}/.well-known/openid-configuration`);
    expect(as.status).toBe(200);
    expect(oidc.status).toBe(200);
    expect(oidc.body).toEqual(as.body);
    const m = as.body;
    expect(m.issuer).toBe(s.issuer);
    expect(m).toMatchObject({
      token_endpoint: `${s.issuer}/api/oauth2/token`,
      revocation_endpoint: `${s.issuer}/api/oauth2/token/revoke`,
      introspection_endpoint: `${s.issuer}/api/oauth2/token/introspect`,
      userinfo_endpoint: `${s.issuer}/api/oauth2/userinfo`,
      jwks_uri: `${s.issuer}/api/oauth2/jwks`,
      authorization_endpoint: `${s.issuer}/oauth2/authorize`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
    });
    expect(m.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']),
    );
    expect(m.grant_types_supported).not.toContain('implicit');
    expect(m.grant_types_supported).not.toContain('password');
    expect(m.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'offline_access', 'drive:read']),
    );
    expect(m.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post', 'none']),
    );
    expect(m.introspection_endpoint_auth_methods_supported).not.toContain('none');
  });

  it('every advertised endpoint answers where the metadata says', async () => {
    const m = (await getJson(`${s.issuer}/.well-known/openid-configuration`)).body;
    expect((await getJson(m.jwks_uri as string)).status).toBe(200);
    const ui = await fetch(m.userinfo_endpoint as string);
    expect(ui.status).toBe(401); // there, and asking for a token
    for (const key of ['token_endpoint', 'revocation_endpoint', 'introspection_endpoint'] as const) {
      const res = await fetch(m[key] as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      expect(res.status, key).toBe(400);
      expect(Object.keys(await res.json()).sort(), key).toEqual(['error', 'error_description']);
    }
  });

  it('openid-client configures itself by discovery and runs client_credentials, introspection and revocation', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const config = await client.discovery(new URL(s.issuer), c.clientId, c.clientSecret as string, undefined, {
      execute: [client.allowInsecureRequests],
    });
    expect(config.serverMetadata().issuer).toBe(s.issuer);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'drive:read' });
    expect(tokens.token_type).toBe('bearer'); // openid-client lower-cases it
    expect(tokens.scope).toBe('drive:read');
    expect(tokens.refresh_token).toBeUndefined();
    const info = await client.tokenIntrospection(config, tokens.access_token);
    expect(info).toMatchObject({ active: true, scope: 'drive:read', client_id: c.clientId, token_type: 'Bearer' });
    expect(info.sub).toBeUndefined();
    await client.tokenRevocation(config, tokens.access_token);
    expect(await client.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
  });

  it('issuer drops a trailing slash of PUBLIC_BASE_URL; OAUTH_CONSENT_URL becomes the authorization endpoint', async () => {
    const t = await createTestApp({
      env: { PUBLIC_BASE_URL: 'https://atrium.example/', OAUTH_CONSENT_URL: 'https://console.example/consent' },
    });
    try {
      const res = await call(t.app, 'GET', '/.well-known/oauth-authorization-server');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        issuer: 'https://atrium.example',
        token_endpoint: 'https://atrium.example/api/oauth2/token',
        authorization_endpoint: 'https://console.example/consent',
      });
    } finally {
      await t.close();
    }
  });
});

describe('id_token signing keys', () => {
  it('the JWKS has an RS256 public key whose kid signs the id_tokens', async () => {
    const c = await seedClient(s, { tenantId: s.demoTenantId });
    const jwks = (await getJson(`${s.issuer}/api/oauth2/jwks`)).body as unknown as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys;
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
    expect(key).not.toHaveProperty('d');
    expect(key).not.toHaveProperty('p');

    const t = await codeFlow(s, c, s.demoAdminToken, 'openid');
    const idToken = t.id_token as string;
    expect(decodeProtectedHeader(idToken)).toMatchObject({ alg: 'RS256', kid: key?.kid });
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(jwks), { issuer: s.issuer, audience: c.clientId });
    expect(payload).toMatchObject({ azp: c.clientId, nonce: t.start.nonce });
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
  });

  it('the private key is stored encrypted, bound to its row, and matches the published key', async () => {
    await fetch(`${s.issuer}/api/oauth2/jwks`); // makes sure the key exists
    const rows = await s.database.db.select().from(oauthSigningKeys);
    expect(rows).toHaveLength(1);
    const row = rows[0] as (typeof rows)[number];
    expect(JSON.stringify(row.publicJwk)).not.toMatch(/"d"/);
    const pem = s.app.ctx.secrets.decrypt(row.privateKeyEncrypted, `oauth_signing_keys:${row.kid}`);
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    // neither the PEM, nor its key bytes, nor the PEM base64-encoded appear in what is stored
    // (a fixed marker like "MII" would also turn up by chance in ~1% of random ciphertexts)
    const keyBase64 = pem.split('\n').slice(1, -2).join('');
    expect(row.privateKeyEncrypted).not.toContain('PRIVATE KEY');
    expect(row.privateKeyEncrypted).not.toContain(keyBase64.slice(0, 40));
    expect(row.privateKeyEncrypted).not.toContain(Buffer.from(pem).toString('base64').slice(0, 40));
    const derived = createPublicKey(createPrivateKey(pem)).export({ format: 'jwk' });
    expect(derived.n).toBe(row.publicJwk.n);
    // copied into another row (another kid) it does not decrypt
    expect(() => s.app.ctx.secrets.decrypt(row.privateKeyEncrypted, 'oauth_signing_keys:other')).toThrow();
  });
});

describe('two instances on one PostgreSQL database', () => {
  it('publish the same single key after a first-use race, and verify each other’s id_tokens', async () => {
    const store = await createTestStore();
    // one deployment: one database and the same SECRET_KEYS on every instance
    const env = { SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    const a = await startOAuthServer({ store, env });
    const b = await startOAuthServer({ store, env });
    try {
      // both create a key at the same moment; the partial unique index keeps one
      const [ja, jb] = await Promise.all([a, b].map((x) => getJson(`${x.issuer}/api/oauth2/jwks`)));
      expect(ja?.body).toEqual(jb?.body);
      expect(ja?.body.keys).toHaveLength(1);
      const [n] = await a.database.db.select({ n: count() }).from(oauthSigningKeys);
      expect(Number(n?.n)).toBe(1);

      const c = await seedClient(a, { tenantId: a.demoTenantId });
      for (const [issuer, verifier] of [
        [a, b],
        [b, a],
      ] as const) {
        const t = await codeFlow(issuer, c, issuer.demoAdminToken, 'openid');
        const jwks = (await getJson(`${verifier.issuer}/api/oauth2/jwks`)).body as unknown as JSONWebKeySet;
        const { payload } = await jwtVerify(t.id_token as string, createLocalJWKSet(jwks), {
          issuer: issuer.issuer,
          audience: c.clientId,
        });
        expect(payload.sub).toBe(oauth.getValidatedIdTokenClaims(t)?.sub);
        // and the other instance honours the access token (one token store)
        const info = await oauth.processIntrospectionResponse(
          verifier.as,
          c.client,
          await oauth.introspectionRequest(verifier.as, c.client, clientAuth(c), t.access_token, insecure),
        );
        expect(info.active).toBe(true);
      }
    } finally {
      await b.close();
      await a.close();
      await store.drop();
    }
  });
});
