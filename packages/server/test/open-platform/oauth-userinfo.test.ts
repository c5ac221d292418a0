import { eq } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { createUserWithPermissions } from '../helpers/fixtures.ts';
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

/**
 * OpenID Connect UserInfo (OIDC Core §5.3): claims by scope for a user-bound token, RFC 6750
 * errors with their WWW-Authenticate challenge for everything else.
 */
let s: OAuthServer;
let c: SeededClient;
let person: { userId: number; token: string; username: string };
beforeAll(async () => {
  s = await startOAuthServer();
  c = await seedClient(s, { tenantId: s.demoTenantId });
  person = await createUserWithPermissions(s, []);
  await s.database.db
    .update(users)
    .set({ nickname: 'Ada Lovelace', email: 'ada@example.com' })
    .where(eq(users.id, person.userId));
});
afterAll(async () => s?.close());

/** UserInfo as a standard client reads it: oauth4webapi also checks `sub` against the id_token's. */
async function userInfo(tokens: Awaited<ReturnType<typeof codeFlow>>) {
  const sub = oauth.getValidatedIdTokenClaims(tokens)?.sub as string;
  const res = await oauth.userInfoRequest(s.as, c.client, tokens.access_token, insecure);
  return oauth.processUserInfoResponse(s.as, c.client, sub, res);
}

/** A code flow without openid (the shared codeFlow always expects an id_token, as it passes a nonce). */
async function plainCodeFlow(userToken: string, scope: string) {
  const start = await startAuthorization(c, scope);
  const params = oauth.validateAuthResponse(s.as, c.client, await approve(s, userToken, start.params), start.state);
  const res = await oauth.authorizationCodeGrantRequest(
    s.as,
    c.client,
    clientAuth(c),
    params,
    start.params.redirect_uri as string,
    start.verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(s.as, c.client, res);
}

type Answer = { status: number; challenge: string | null; body: Record<string, unknown>; cacheControl: string | null };

async function get(token?: string, scheme = 'Bearer'): Promise<Answer> {
  const res = await fetch(`${s.issuer}/api/oauth2/userinfo`, {
    headers: token === undefined ? {} : { authorization: `${scheme} ${token}` },
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as Record<string, unknown>,
    cacheControl: res.headers.get('cache-control'),
  };
}

describe('claims by scope', () => {
  it('openid alone gives sub only, the id_token’s sub', async () => {
    const t = await codeFlow(s, c, person.token, 'openid');
    const claims = await userInfo(t);
    expect(claims).toEqual({ sub: String(person.userId) });
    expect(oauth.getValidatedIdTokenClaims(t)?.sub).toBe(String(person.userId));
  });

  it('profile adds name, preferred_username and updated_at', async () => {
    const t = await codeFlow(s, c, person.token, 'openid profile');
    const claims = await userInfo(t);
    expect(Object.keys(claims).sort()).toEqual(['name', 'preferred_username', 'sub', 'updated_at']);
    expect(claims).toMatchObject({
      sub: String(person.userId),
      name: 'Ada Lovelace',
      preferred_username: person.username,
    });
    expect(Number.isInteger(claims.updated_at)).toBe(true);
    expect(Math.abs((claims.updated_at as number) - Date.now() / 1000)).toBeLessThan(600);
  });

  it('email adds the address (unverified); a user without one gets no email claim', async () => {
    const t = await codeFlow(s, c, person.token, 'openid email');
    expect(await userInfo(t)).toEqual({ sub: String(person.userId), email: 'ada@example.com', email_verified: false });

    const noMail = await createUserWithPermissions(s, []);
    const t2 = await codeFlow(s, c, noMail.token, 'openid email profile');
    const claims = await userInfo(t2);
    expect(claims).not.toHaveProperty('email');
    expect(claims.preferred_username).toBe(noMail.username);
  });

  it('a refreshed access token reads the same claims; POST works like GET (OIDC Core §5.3.1)', async () => {
    const t = await codeFlow(s, c, person.token, 'openid profile offline_access');
    const r = await oauth.processRefreshTokenResponse(
      s.as,
      c.client,
      await oauth.refreshTokenGrantRequest(s.as, c.client, clientAuth(c), t.refresh_token as string, insecure),
    );
    const expected = await userInfo(t);
    const viaHeader = await fetch(`${s.issuer}/api/oauth2/userinfo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.access_token}` },
    });
    expect(viaHeader.status).toBe(200);
    expect(await viaHeader.json()).toEqual(expected);
    const viaForm = await fetch(`${s.issuer}/api/oauth2/userinfo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: r.access_token }),
    });
    expect(viaForm.status).toBe(200);
    expect(await viaForm.json()).toEqual(expected);
    // RFC 6750 §2: never two methods at once
    const both = await fetch(`${s.issuer}/api/oauth2/userinfo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${r.access_token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: r.access_token }),
    });
    expect(both.status).toBe(400);
    expect((await both.json()).error).toBe('invalid_request');
  });
});

describe('refusals (RFC 6750 §3)', () => {
  it('a client_credentials token has no user: 401 invalid_token with a challenge', async () => {
    const cc = await oauth.processClientCredentialsResponse(
      s.as,
      c.client,
      await oauth.clientCredentialsGrantRequest(
        s.as,
        c.client,
        clientAuth(c),
        new URLSearchParams({ scope: 'drive:read' }),
        insecure,
      ),
    );
    const res = await get(cc.access_token);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_token');
    expect(res.challenge).toMatch(/^Bearer realm="atrium", error="invalid_token"/);
    expect(res.cacheControl).toBe('no-store');
    // what a standard client sees: the parsed challenge
    const err = await oauth
      .processUserInfoResponse(
        s.as,
        c.client,
        oauth.skipSubjectCheck,
        await oauth.userInfoRequest(s.as, c.client, cc.access_token, insecure),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((err as oauth.WWWAuthenticateChallengeError).cause[0]?.parameters.error).toBe('invalid_token');
  });

  it('a user token without openid: 403 insufficient_scope naming the scope', async () => {
    const t = await plainCodeFlow(person.token, 'profile drive:read');
    expect(t.id_token).toBeUndefined();
    const res = await get(t.access_token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
    expect(res.challenge).toMatch(/^Bearer realm="atrium", error="insufficient_scope", .*scope="openid"$/);
  });

  it('no token: 401 with a bare Bearer challenge (no error code, RFC 6750 §3.1)', async () => {
    const res = await get();
    expect(res.status).toBe(401);
    expect(res.challenge).toBe('Bearer realm="atrium"');
    expect(res.body.error).toBe('invalid_token');
    const basic = await get(Buffer.from('a:b').toString('base64'), 'Basic');
    expect([basic.status, basic.challenge]).toEqual([401, 'Bearer realm="atrium"']);
  });

  it('garbage, revoked and console tokens: 401 invalid_token', async () => {
    const t = await codeFlow(s, c, person.token, 'openid profile');
    expect((await get(t.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(s.as, c.client, clientAuth(c), t.access_token, insecure),
    );
    for (const token of ['garbage', t.access_token, s.demoAdminToken, s.adminToken, person.token]) {
      const res = await get(token);
      expect(res.status, token).toBe(401);
      expect(res.body.error).toBe('invalid_token');
      expect(res.challenge).toMatch(/error="invalid_token"/);
    }
  });

  it('a disabled user’s token stops answering', async () => {
    const u = await createUserWithPermissions(s, []);
    const t = await codeFlow(s, c, u.token, 'openid');
    expect((await get(t.access_token)).status).toBe(200);
    await s.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, u.userId));
    const res = await get(t.access_token);
    expect([res.status, res.body.error]).toEqual([401, 'invalid_token']);
  });
});
