import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_ERROR_STATUS } from '../../src/platform/http/errors.ts';
import { replyFormats } from '../../src/platform/http/reply-formats.ts';
import { route } from '../../src/platform/http/route.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { type SeededClient, seedClient } from '../open-platform/oauth-helpers.ts';

/**
 * The kernel's side of the OAuth endpoints (spec §7.1, docs/api-conventions.md): every error of
 * a `replyFormats.oauth` route, the kernel's own included, is `{error, error_description}`
 * with the code's status and no-store; the form parser; a database outage as a 503.
 */
const FORM = 'application/x-www-form-urlencoded';

function echoRoute(app: FastifyInstance) {
  route(app, {
    method: 'POST',
    url: '/api/test/form-echo',
    operation: 'test.form.echo',
    auth: 'public',
    reply: replyFormats.body(),
    consumes: ['application/x-www-form-urlencoded'],
    schema: {
      tags: ['Docs'],
      summary: 'test: what the form parser made of a body',
      body: Type.Object({}, { additionalProperties: true }),
      response: Type.Object({ json: Type.String(), plain: Type.Boolean() }),
    },
    handler: async (req) => ({
      json: JSON.stringify(req.body),
      plain: Object.getPrototypeOf(req.body) === Object.prototype,
    }),
  });
}

let t: TestApp;
let c: SeededClient;
beforeAll(async () => {
  t = await createTestApp({ env: { BODY_LIMIT_BYTES: '4096' }, extraRoutes: echoRoute });
  c = await seedClient(t, { tenantId: t.demoTenantId });
});
afterAll(async () => t?.close());

const basic = (client: SeededClient, secret = client.clientSecret) =>
  `Basic ${Buffer.from(`${client.clientId}:${secret}`).toString('base64')}`;

type Case = {
  name: string;
  method?: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  payload?: string | object;
  token?: 'demo';
  error: keyof typeof OAUTH_ERROR_STATUS;
};

describe('protocol error rendering', () => {
  const cases: Case[] = [
    { name: 'token: no grant_type', url: '/api/oauth2/token', payload: '', error: 'invalid_request' },
    {
      name: 'token: unknown grant',
      url: '/api/oauth2/token',
      payload: 'grant_type=password',
      error: 'unsupported_grant_type',
    },
    {
      name: 'token: wrong secret',
      url: '/api/oauth2/token',
      payload: 'grant_type=client_credentials',
      headers: { authorization: 'WRONG' },
      error: 'invalid_client',
    },
    {
      name: 'token: a JSON body',
      url: '/api/oauth2/token',
      headers: { 'content-type': 'application/json' },
      payload: { grant_type: 'client_credentials' },
      error: 'invalid_request',
    },
    {
      name: 'token: malformed JSON',
      url: '/api/oauth2/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":',
      error: 'invalid_request',
    },
    {
      name: 'token: an unsupported media type (a 415 in the kernel)',
      url: '/api/oauth2/token',
      headers: { 'content-type': 'application/xml' },
      payload: '<grant_type>client_credentials</grant_type>',
      error: 'invalid_request',
    },
    {
      name: 'token: a body over the limit (a 413 in the kernel)',
      url: '/api/oauth2/token',
      payload: `grant_type=client_credentials&pad=${'x'.repeat(8192)}`,
      error: 'invalid_request',
    },
    { name: 'revoke: no client', url: '/api/oauth2/token/revoke', payload: 'token=x', error: 'invalid_client' },
    { name: 'introspect: no client', url: '/api/oauth2/token/introspect', payload: 'token=x', error: 'invalid_client' },
    { name: 'userinfo: no token', method: 'GET', url: '/api/oauth2/userinfo', error: 'invalid_token' },
    {
      name: 'userinfo: a console token',
      method: 'GET',
      url: '/api/oauth2/userinfo',
      token: 'demo',
      error: 'invalid_token',
    },
    {
      name: 'authorize/info: not signed in (a kernel 401)',
      method: 'GET',
      url: '/api/oauth2/authorize/info?client_id=x&redirect_uri=https://a.example/cb&response_type=code',
      error: 'invalid_token',
    },
    {
      name: 'authorize/info: schema validation (a kernel 400)',
      method: 'GET',
      url: '/api/oauth2/authorize/info?client_id=x',
      token: 'demo',
      error: 'invalid_request',
    },
    {
      name: 'authorize: unknown client',
      url: '/api/oauth2/authorize',
      token: 'demo',
      headers: { 'content-type': 'application/json' },
      payload: { client_id: 'nope', redirect_uri: 'https://a.example/cb', response_type: 'code' },
      error: 'invalid_client',
    },
  ];

  for (const k of cases) {
    it(`${k.name} → ${k.error}`, async () => {
      const headers: Record<string, string> = { 'content-type': FORM, ...k.headers };
      if (headers.authorization === 'WRONG') headers.authorization = basic(c, 'wrong-secret');
      if (k.token) headers.authorization = `Bearer ${t.demoAdminToken}`;
      const res = await t.app.inject({
        method: k.method ?? 'POST',
        url: k.url,
        headers: k.method === 'GET' ? { ...headers, 'content-type': '' } : headers,
        ...(k.payload !== undefined ? { payload: k.payload } : {}),
      });
      expect(res.json(), res.body).toEqual({ error: k.error, error_description: expect.any(String) });
      expect(res.json().error_description).not.toBe('');
      expect(res.statusCode).toBe(OAUTH_ERROR_STATUS[k.error]);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
  }

  it('a repeated parameter is invalid_request naming it (RFC 6749 §3.2)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/oauth2/token',
      headers: { 'content-type': FORM, authorization: basic(c) },
      payload: 'grant_type=client_credentials&scope=drive:read&scope=openid',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/^scope /) });
    // the same request without the repetition is granted
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/oauth2/token',
      headers: { 'content-type': FORM, authorization: basic(c) },
      payload: 'grant_type=client_credentials&scope=drive:read',
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('other routes keep the envelope error', async () => {
    const res = await call(t.app, 'GET', '/api/users');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 401, error: 'auth.unauthenticated', requestId: expect.any(String) });
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'x'.repeat(8192) }),
    });
    expect([big.statusCode, big.json().error]).toEqual([413, 'request.body_too_large']);
  });
});

describe('form parser', () => {
  it('one string per name, a repeated name as an array, prototype names as plain fields', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/test/form-echo',
      headers: { 'content-type': FORM },
      payload: 'a=1&a=2&a=3&b=&c=x+y%26z&constructor=k&toString=t&__proto__=p&__proto__=q',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().plain).toBe(true);
    expect(JSON.parse(res.json().json)).toEqual({
      a: ['1', '2', '3'],
      b: '',
      c: 'x y&z',
      constructor: 'k',
      toString: 't',
    });
  });
});

describe('database unavailable', () => {
  it('the token endpoint answers 503 temporarily_unavailable with Retry-After; other routes 503 ops.database_unavailable', async () => {
    const down = await createTestApp();
    const client = await seedClient(down, { tenantId: down.demoTenantId });
    // stop the job workers first: their own loop would log errors against the closed pool
    await down.app.ctx.jobs.stop();
    await down.database.close();
    try {
      const res = await down.app.inject({
        method: 'POST',
        url: '/api/oauth2/token',
        headers: { 'content-type': FORM, authorization: basic(client) },
        payload: 'grant_type=client_credentials&scope=drive:read',
      });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.headers['cache-control']).toBe('no-store');

      const envelope = await call(down.app, 'GET', '/api/users', { token: down.demoAdminToken });
      expect(envelope.statusCode).toBe(503);
      expect(envelope.json().error).toBe('ops.database_unavailable');
      expect(Number(envelope.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await down.app.close();
      await down.cache.close();
      await down.store.drop();
    }
  });
});
