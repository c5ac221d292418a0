import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import * as oauth from 'oauth4webapi';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '../../src/modules/identity/tables.ts';
import { openApps } from '../../src/modules/open-platform/apps/tables.ts';
import type { Scope } from '../../src/platform/auth/principal.ts';
import { route } from '../../src/platform/http/route.ts';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
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
 * Application bearer access (`auth: 'app'`, RFC 6750): routes declared through the real route()
 * helper, called with access tokens from the real token endpoint.
 */
const Caller = Type.Object({
  kind: Type.String(),
  appId: Type.Integer(),
  clientId: Type.String(),
  tenantId: Type.Union([Type.Integer(), Type.Null()]),
  userId: Type.Union([Type.Integer(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  /** the tenant the request acts in */
  actsIn: Type.Union([Type.Integer(), Type.Null()]),
});

function testRoutes(app: FastifyInstance) {
  const whoami = (req: { scope: Scope }) => {
    const p = req.scope.principal;
    if (p?.kind !== 'app') throw new Error('not an application');
    return { ...p, scopes: [...p.scopes].sort(), actsIn: req.scope.tenantId };
  };
  route(app, {
    method: 'GET',
    url: '/api/test/open/files',
    operation: 'test.openFiles.list',
    auth: 'app',
    scopes: ['drive:read'],
    schema: { tags: ['OpenApi'], summary: 'test: who is calling (drive:read)', response: Caller },
    handler: async (req) => whoami(req),
  });
  route(app, {
    method: 'POST',
    url: '/api/test/open/files',
    operation: 'test.openFiles.create',
    auth: 'app',
    scopes: ['drive:read', 'drive:write'],
    schema: { tags: ['OpenApi'], summary: 'test: needs two scopes', response: Caller },
    handler: async (req) => whoami(req),
  });
}

let offsetMs = 0;
let s: OAuthServer;
let c: SeededClient;
let demoAdminId: number;
beforeAll(async () => {
  s = await startOAuthServer({ clock: () => new Date(Date.now() + offsetMs), extraRoutes: testRoutes });
  c = await seedClient(s, {
    tenantId: s.demoTenantId,
    allowedScopes: ['openid', 'offline_access', 'drive:read', 'drive:write'],
  });
  demoAdminId = (await call(s.app, 'GET', '/api/auth/me', { token: s.demoAdminToken })).json().data.user.id;
});
afterAll(async () => s?.close());

async function clientCredentials(client: SeededClient, scope: string): Promise<string> {
  const res = await oauth.clientCredentialsGrantRequest(
    s.as,
    client.client,
    clientAuth(client),
    new URLSearchParams({ scope }),
    insecure,
  );
  return (await oauth.processClientCredentialsResponse(s.as, client.client, res)).access_token;
}

const files = (token?: string, method: 'GET' | 'POST' = 'GET') =>
  call(s.app, method, '/api/test/open/files', token === undefined ? {} : { token });

describe('granted', () => {
  it('a client_credentials token with drive:read acts as the application in its tenant, with no user', async () => {
    const res = await files(await clientCredentials(c, 'drive:read'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      kind: 'app',
      appId: c.id,
      clientId: c.clientId,
      tenantId: s.demoTenantId,
      userId: null,
      scopes: ['drive:read'],
      actsIn: s.demoTenantId,
    });
  });

  it('a user-bound token carries the user who authorized the application', async () => {
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid drive:read');
    const res = await files(t.access_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ kind: 'app', appId: c.id, userId: demoAdminId, tenantId: s.demoTenantId });
    // the scheme name is case-insensitive (RFC 6750 §2.1 / RFC 7235)
    const lower = await call(s.app, 'GET', '/api/test/open/files', {
      headers: { authorization: `bearer ${t.access_token}` },
    });
    expect(lower.statusCode).toBe(200);
  });

  it('a disabled user’s token stops opening app routes, and works again once the user is enabled', async () => {
    const u = await createUserWithPermissions(s, []);
    const t = await codeFlow(s, c, u.token, 'openid drive:read');
    expect((await files(t.access_token)).statusCode).toBe(200);
    const setStatus = (status: 'active' | 'disabled') =>
      s.database.db.update(users).set({ status }).where(eq(users.id, u.userId));
    await setStatus('disabled');
    expectError(await files(t.access_token), 401, 'auth.invalid_token');
    await setStatus('active');
    expect((await files(t.access_token)).statusCode).toBe(200);
  });

  it('an application of another tenant acts in its own tenant', async () => {
    const tenantB = await createTenant(s);
    const b = await seedClient(s, { tenantId: tenantB.tenantId });
    const res = await files(await clientCredentials(b, 'drive:read'));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ appId: b.id, tenantId: tenantB.tenantId, actsIn: tenantB.tenantId });
  });
});

describe('refused (RFC 6750 §3)', () => {
  it('a token without a needed scope: 403 insufficient_scope naming every scope the route needs', async () => {
    const writeOnly = await clientCredentials(c, 'drive:write');
    const res = await files(writeOnly);
    expectError(res, 403, 'auth.insufficient_scope');
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="atrium", error="insufficient_scope", scope="drive:read"',
    );

    const readOnly = await clientCredentials(c, 'drive:read');
    const both = await files(readOnly, 'POST');
    expectError(both, 403, 'auth.insufficient_scope');
    expect(both.headers['www-authenticate']).toBe(
      'Bearer realm="atrium", error="insufficient_scope", scope="drive:read drive:write"',
    );
    expect((await files(await clientCredentials(c, 'drive:read drive:write'), 'POST')).statusCode).toBe(200);
  });

  it('no token: 401 with a bare Bearer challenge', async () => {
    const res = await files();
    expectError(res, 401, 'auth.unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="atrium"');
    const basic = await call(s.app, 'GET', '/api/test/open/files', { headers: { authorization: 'Basic YTpi' } });
    expectError(basic, 401, 'auth.unauthenticated');
  });

  it('revoked, expired, unknown and console tokens: 401 invalid_token', async () => {
    const revoked = await clientCredentials(c, 'drive:read');
    expect((await files(revoked)).statusCode).toBe(200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(s.as, c.client, clientAuth(c), revoked, insecure),
    );
    const expiring = await clientCredentials(c, 'drive:read');
    for (const token of [revoked, 'not-a-token', s.demoAdminToken, s.adminToken]) {
      const res = await files(token);
      expectError(res, 401, 'auth.invalid_token');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="atrium", error="invalid_token"');
    }
    offsetMs = 3601_000;
    try {
      expectError(await files(expiring), 401, 'auth.invalid_token');
    } finally {
      offsetMs = 0;
    }
    expect((await files(expiring)).statusCode).toBe(200);
  });

  it('a refresh token is not an access token', async () => {
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid offline_access drive:read');
    expect((await files(t.access_token)).statusCode).toBe(200);
    expectError(await files(t.refresh_token as string), 401, 'auth.invalid_token');
  });

  it('a disabled application’s tokens stop working until it is enabled again', async () => {
    const app = await seedClient(s, { tenantId: s.demoTenantId });
    const token = await clientCredentials(app, 'drive:read');
    const setStatus = (status: 'active' | 'disabled') =>
      s.database.db.update(openApps).set({ status }).where(eq(openApps.id, app.id));
    await setStatus('disabled');
    expectError(await files(token), 401, 'auth.invalid_token');
    await setStatus('active');
    expect((await files(token)).statusCode).toBe(200);
  });

  it('an application’s access token opens no console route', async () => {
    const cc = await clientCredentials(c, 'drive:read');
    const t = await codeFlow(s, c, s.demoAdminToken, 'openid drive:read');
    for (const token of [cc, t.access_token]) {
      expectError(await call(s.app, 'GET', '/api/auth/me', { token }), 401, 'auth.invalid_token');
      expectError(await call(s.app, 'GET', '/api/users', { token }), 401, 'auth.invalid_token');
    }
  });
});

describe('OpenAPI', () => {
  it('declares the OAuth2 scheme and each app route’s scopes as its security', async () => {
    const doc = (await call(s.app, 'GET', '/api/openapi.json')).json();
    const scheme = doc.components.securitySchemes.OAuth2;
    expect(scheme.type).toBe('oauth2');
    // absolute, as in the discovery metadata: the issuer is PUBLIC_BASE_URL
    expect(scheme.flows.clientCredentials.tokenUrl).toBe(`${s.issuer}/api/oauth2/token`);
    expect(scheme.flows.authorizationCode).toMatchObject({
      authorizationUrl: `${s.issuer}/oauth2/authorize`,
      tokenUrl: `${s.issuer}/api/oauth2/token`,
      refreshUrl: `${s.issuer}/api/oauth2/token`,
    });
    expect(Object.keys(scheme.flows.clientCredentials.scopes)).toEqual(
      expect.arrayContaining(['drive:read', 'drive:write']),
    );
    expect(scheme.flows.clientCredentials.scopes['drive:read']).toMatch(/\w/);

    const get = doc.paths['/api/test/open/files'].get;
    expect(get.security).toEqual([{ OAuth2: ['drive:read'] }]);
    expect(get['x-scopes']).toEqual(['drive:read']);
    expect(doc.paths['/api/test/open/files'].post.security).toEqual([{ OAuth2: ['drive:read', 'drive:write'] }]);
    // console routes keep the document's default BearerAuth; protocol endpoints are public
    expect(doc.paths['/api/users'].get.security).toBeUndefined();
    expect(doc.paths['/api/oauth2/token'].post.security).toEqual([]);
  });
});
