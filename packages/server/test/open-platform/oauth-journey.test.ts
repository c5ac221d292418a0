import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientAuth, codeFlow, insecure, type OAuthServer, seedClient, startOAuthServer } from './oauth-helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});
afterAll(async () => s?.close());

it('a standard client goes the whole way: client credentials, open API, code flow, refresh, introspection, UserInfo, revocation', async () => {
  const c = await seedClient(s, { tenantId: s.demoTenantId });
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
  expect(cc.scope).toBe('drive:read');
  const me = await fetch(`${s.issuer}/api/open/v1/me`, { headers: { authorization: `Bearer ${cc.access_token}` } });
  expect(me.status).toBe(200);
  expect((await me.json()).data).toEqual({
    appId: c.id,
    clientId: c.clientId,
    tenantId: s.demoTenantId,
    userId: null,
    scopes: ['drive:read'],
  });
  const t = await codeFlow(s, c, s.demoAdminToken, 'openid profile email offline_access');
  expect(t.refresh_token).toBeTruthy();
  const r = await oauth.processRefreshTokenResponse(
    s.as,
    c.client,
    await oauth.refreshTokenGrantRequest(s.as, c.client, clientAuth(c), t.refresh_token as string, insecure),
  );
  const info = await oauth.processIntrospectionResponse(
    s.as,
    c.client,
    await oauth.introspectionRequest(s.as, c.client, clientAuth(c), r.access_token, insecure),
  );
  expect(info.active).toBe(true);
  const claims = oauth.getValidatedIdTokenClaims(t);
  const ui = await oauth.processUserInfoResponse(
    s.as,
    c.client,
    claims?.sub as string,
    await oauth.userInfoRequest(s.as, c.client, r.access_token, insecure),
  );
  expect(ui.preferred_username).toBe('admin');
  await oauth.processRevocationResponse(
    await oauth.revocationRequest(s.as, c.client, clientAuth(c), r.refresh_token as string, insecure),
  );
  const after = await oauth.processIntrospectionResponse(
    s.as,
    c.client,
    await oauth.introspectionRequest(s.as, c.client, clientAuth(c), r.access_token, insecure),
  );
  expect(after.active).toBe(false);
});
