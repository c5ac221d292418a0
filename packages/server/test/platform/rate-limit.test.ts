import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { route } from '../../src/platform/http/route.ts';
import { call, createTestApp, createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';

/** Test-only routes declaring rate limits through the real route() helper. */
function limitedRoutes(app: FastifyInstance) {
  const ok = { response: Type.Object({ ok: Type.Literal(true) }) };
  const handler = async () => ({ ok: true as const });
  const common = { method: 'GET' as const, handler };
  route(app, {
    ...common,
    url: '/api/test/limited/ip',
    operation: 'test.limited_ip.get',
    auth: 'public',
    rateLimit: { max: 3, windowSeconds: 60, key: 'ip' },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
  route(app, {
    ...common,
    url: '/api/test/limited/ip-other',
    operation: 'test.limited_ip_other.get',
    auth: 'public',
    rateLimit: { max: 3, windowSeconds: 60, key: 'ip' },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
  route(app, {
    ...common,
    url: '/api/test/limited/user',
    operation: 'test.limited_user.get',
    auth: 'user',
    rateLimit: { max: 2, windowSeconds: 120, key: 'user' },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
  route(app, {
    ...common,
    url: '/api/test/limited/ip-before-auth',
    operation: 'test.limited_ip_user.get',
    auth: 'user',
    rateLimit: { max: 2, windowSeconds: 60, key: 'ip' },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
  route(app, {
    ...common,
    url: '/api/test/limited/optional',
    operation: 'test.limited_optional.get',
    auth: 'optional',
    rateLimit: { max: 1, windowSeconds: 60, key: 'user' },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
  route(app, {
    ...common,
    url: '/api/test/limited/custom',
    operation: 'test.limited_custom.get',
    auth: 'public',
    rateLimit: { max: 1, windowSeconds: 60, key: (req) => String(req.headers['x-client'] ?? 'anonymous') },
    schema: { tags: ['Monitor'], summary: 'test only', ...ok },
  });
}

const get = (
  app: FastifyInstance,
  url: string,
  opts: { ip?: string; token?: string; headers?: Record<string, string> } = {},
) =>
  app.inject({
    method: 'GET',
    url,
    remoteAddress: opts.ip ?? '198.51.100.1',
    headers: { ...opts.headers, ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
  });

describe('route rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ extraRoutes: limitedRoutes });
  });
  afterAll(async () => t?.close());

  it('answers 429 request.rate_limited with Retry-After once an IP passes max', async () => {
    for (let i = 0; i < 3; i++)
      expect((await get(t.app, '/api/test/limited/ip', { ip: '203.0.113.1' })).statusCode).toBe(200);
    const res = await get(t.app, '/api/test/limited/ip', { ip: '203.0.113.1' });
    expectError(res, 429, 'request.rate_limited');
    expect(res.json()).toMatchObject({ code: 429, message: expect.any(String), requestId: expect.any(String) });
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // the envelope carries the same wait, for clients that cannot read headers
    expect(res.json().retryAfter).toBe(retryAfter);
  });

  it('counts each IP and each operation apart', async () => {
    for (let i = 0; i < 4; i++) await get(t.app, '/api/test/limited/ip', { ip: '203.0.113.2' });
    expect((await get(t.app, '/api/test/limited/ip', { ip: '203.0.113.2' })).statusCode).toBe(429);
    expect((await get(t.app, '/api/test/limited/ip', { ip: '203.0.113.3' })).statusCode).toBe(200);
    expect((await get(t.app, '/api/test/limited/ip-other', { ip: '203.0.113.2' })).statusCode).toBe(200);
  });

  it('counts signed-in users apart, after authentication', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await get(t.app, '/api/test/limited/user', { token: t.adminToken })).statusCode).toBe(200);
    }
    const limited = await get(t.app, '/api/test/limited/user', { token: t.adminToken, ip: '203.0.113.9' });
    expectError(limited, 429, 'request.rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(120);
    // another user from the same IP is not affected
    expect((await get(t.app, '/api/test/limited/user', { token: t.demoAdminToken })).statusCode).toBe(200);
    // without a token the answer stays 401: nobody is counted before authentication
    for (let i = 0; i < 4; i++) {
      expectError(await get(t.app, '/api/test/limited/user'), 401, 'auth.unauthenticated');
    }
  });

  it('checks an IP limit before authentication, so a flood without tokens is cut off', async () => {
    for (let i = 0; i < 2; i++) {
      expectError(
        await get(t.app, '/api/test/limited/ip-before-auth', { ip: '203.0.113.4' }),
        401,
        'auth.unauthenticated',
      );
    }
    const res = await get(t.app, '/api/test/limited/ip-before-auth', { ip: '203.0.113.4', token: t.adminToken });
    expectError(res, 429, 'request.rate_limited');
  });

  it('counts an anonymous caller of a user-keyed route by IP', async () => {
    expect((await get(t.app, '/api/test/limited/optional', { ip: '203.0.113.5' })).statusCode).toBe(200);
    expect((await get(t.app, '/api/test/limited/optional', { ip: '203.0.113.5' })).statusCode).toBe(429);
    expect(
      (await get(t.app, '/api/test/limited/optional', { ip: '203.0.113.5', token: t.adminToken })).statusCode,
    ).toBe(200);
    expect((await get(t.app, '/api/test/limited/optional', { ip: '203.0.113.6' })).statusCode).toBe(200);
  });

  it('counts by the key a route computes', async () => {
    const as = (client: string) => get(t.app, '/api/test/limited/custom', { headers: { 'x-client': client } });
    expect((await as('alpha')).statusCode).toBe(200);
    expect((await as('alpha')).statusCode).toBe(429);
    expect((await as('beta')).statusCode).toBe(200);
  });

  it('leaves routes without a limit alone', async () => {
    for (let i = 0; i < 10; i++) expect((await call(t.app, 'GET', '/api/health')).statusCode).toBe(200);
  });

  it('shows the limit as x-rate-limit in a valid OpenAPI document', async () => {
    const doc = (await call(t.app, 'GET', '/api/openapi.json')).json();
    expect(doc.paths['/api/test/limited/ip'].get['x-rate-limit']).toEqual({ max: 3, windowSeconds: 60, key: 'ip' });
    expect(doc.paths['/api/test/limited/user'].get['x-rate-limit']).toEqual({
      max: 2,
      windowSeconds: 120,
      key: 'user',
    });
    expect(doc.paths['/api/test/limited/custom'].get['x-rate-limit']).toEqual({
      max: 1,
      windowSeconds: 60,
      key: 'custom',
    });
    expect(doc.paths['/api/health'].get['x-rate-limit']).toBeUndefined();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
  });

  it('stores the counters in the configured cache', () => {
    expect(t.cache.kind).toBe(usingRedis ? 'redis' : 'memory');
  });
});

describe('a rate limit declaration', () => {
  it.each([
    { max: 0, windowSeconds: 60 },
    { max: 1.5, windowSeconds: 60 },
    { max: 5, windowSeconds: 0 },
  ])('is refused when not whole numbers ≥ 1: %o', ({ max, windowSeconds }) => {
    const app = Fastify();
    expect(() =>
      route(app, {
        method: 'GET',
        url: '/x',
        operation: 'test.bad_limit.get',
        auth: 'public',
        rateLimit: { max, windowSeconds, key: 'ip' },
        schema: { tags: ['Monitor'], summary: 'test only', response: Type.Object({}) },
        handler: async () => ({}),
      }),
    ).toThrow(/test\.bad_limit\.get: rateLimit/);
  });
});

/** With Redis, every instance counts into the same window (ARCHITECTURE §6). */
describe.runIf(usingRedis)('two instances sharing Redis', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    ({ a, b, close } = await createTwoInstances({ extraRoutes: limitedRoutes }));
  });
  afterAll(async () => close?.());

  it('refuses on B the call that passes the limit counted on A', async () => {
    const ip = '203.0.113.77';
    expect((await get(a.app, '/api/test/limited/ip', { ip })).statusCode).toBe(200);
    expect((await get(b.app, '/api/test/limited/ip', { ip })).statusCode).toBe(200);
    expect((await get(a.app, '/api/test/limited/ip', { ip })).statusCode).toBe(200);
    expectError(await get(b.app, '/api/test/limited/ip', { ip }), 429, 'request.rate_limited');
  });
});
