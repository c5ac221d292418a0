import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { route } from '../../src/platform/http/route.ts';
import { ADMIN_PASSWORD, call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createPlatformUserWithPermissions } from '../helpers/fixtures.ts';
import { connect, listenForSockets, type PushClient, type PushMessage } from '../helpers/ws-client.ts';
import { expectAnswered, health, logLines, metric, pollUntil, privateRedis, timedCall } from './fault-helpers.ts';

/**
 * Redis stopped, started again and frozen under a running instance (issue 27, decision 0040):
 * nothing hangs and nothing is a 500; sign-in, lists, writes and live push go on (principals read
 * from PostgreSQL, rate limits count per instance, pub/sub delivers locally); what cannot do
 * without Redis (a captcha) says 503 ops.cache_unavailable; health says degraded; when Redis is
 * back everything uses it again and what changed meanwhile holds.
 */
let redis: Awaited<ReturnType<typeof privateRedis>>;
let t: TestApp;
let base: string;
const log = logLines();
const PREFIX = `atrium-fault:${process.pid}:`;

/** A route limited to 3 calls a minute per IP, declared through the real route() helper. */
function limitedRoute(app: FastifyInstance) {
  route(app, {
    method: 'GET',
    url: '/api/test/faults/limited',
    operation: 'test.faults_limited.get',
    auth: 'public',
    rateLimit: { max: 3, windowSeconds: 60, key: 'ip' },
    schema: { tags: ['Monitor'], summary: 'test only', response: Type.Object({ ok: Type.Literal(true) }) },
    handler: async () => ({ ok: true as const }),
  });
}

beforeAll(async () => {
  redis = await privateRedis();
  t = await createTestApp({
    env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: PREFIX, LOG_LEVEL: 'info' },
    extraRoutes: limitedRoute,
    logDestination: log.destination,
  });
  base = await listenForSockets(t);
  // the demo tenant asks for a captcha: a single-use answer only Redis can hold for every instance
  const put = await call(t.app, 'PUT', '/api/settings/security', {
    token: t.demoAdminToken,
    body: { captchaEnabled: true },
  });
  expect(put.statusCode, put.body).toBe(200);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

const warnings = (text: string) => log.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith(text));

async function publishNotice(title: string): Promise<number> {
  const created = expectAnswered(
    await timedCall(t.app, 'POST', '/api/notices', {
      token: t.demoAdminToken,
      body: { title, content: `<p>${title}</p>` },
    }),
    'create a notice',
  );
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as number;
  const published = expectAnswered(
    await timedCall(t.app, 'POST', `/api/notices/${id}/publish`, { token: t.demoAdminToken }),
    'publish a notice',
  );
  expect(published.statusCode, published.body).toBe(200);
  return id;
}
const noticeEvent = (id: number) => (m: PushMessage) => m.topic === 'notice.published' && m.data.id === id;

describe('Redis stopped and started again', () => {
  let socket: PushClient;
  let createdUserId: number;

  it('before: health is ok, the cache is Redis and up', async () => {
    const h = await health(t.app);
    expect(h.statusCode).toBe(200);
    expect(h.report.status).toBe('ok');
    expect(h.report.dependencies.cache).toMatchObject({ state: 'up', kind: 'redis', required: false });
    socket = await connect(base, t.demoAdminToken);
  });

  it('while stopped: sign-in, lists, writes, push and rate limits go on; a captcha is a 503; health is degraded', async () => {
    await redis.stop();

    const login = expectAnswered(
      await timedCall(t.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } }),
      'sign-in',
    );
    expect(login.statusCode, login.body).toBe(200);
    const token = login.json().data.accessToken as string;

    const list = expectAnswered(await timedCall(t.app, 'GET', '/api/users', { token: t.demoAdminToken }), 'user list');
    expect(list.statusCode, list.body).toBe(200);
    const me = expectAnswered(await timedCall(t.app, 'GET', '/api/auth/me', { token }), 'the new session');
    expect(me.statusCode).toBe(200);

    const created = expectAnswered(
      await timedCall(t.app, 'POST', '/api/users', {
        token: t.demoAdminToken,
        body: { username: `during-outage-${process.pid}`, password: 'Outage#Pass2026', nickname: 'During the outage' },
      }),
      'create a user',
    );
    expect(created.statusCode, created.body).toBe(201);
    createdUserId = created.json().data.id;

    // live push reaches this instance's sockets without Redis
    const notice = await publishNotice('Published while Redis is down');
    await socket.waitFor(noticeEvent(notice));

    // a captcha answer must be shared by every instance: no fallback, a named 503
    const captcha = expectAnswered(await timedCall(t.app, 'GET', '/api/auth/captcha?tenantCode=demo'), 'captcha');
    expectError(captcha, 503, 'ops.cache_unavailable');
    expect(Number(captcha.headers['retry-after'])).toBeGreaterThan(0);

    // rate limits still limit (per instance), and do not lock anyone out
    for (let i = 0; i < 3; i++)
      expect(expectAnswered(await timedCall(t.app, 'GET', '/api/test/faults/limited'), 'limited').statusCode).toBe(200);
    expectError(await call(t.app, 'GET', '/api/test/faults/limited'), 429, 'request.rate_limited');

    // a report is reused for up to 2 s: the outage shows at the next probe
    await pollUntil('health says degraded', async () => (await health(t.app)).report.status === 'degraded', 5_000);
    const h = await health(t.app);
    expect(h.statusCode).toBe(200);
    expect(h.report).toMatchObject({ status: 'degraded', ready: true });
    expect(h.report.dependencies.cache).toMatchObject({ state: 'down', kind: 'redis' });
    expect(h.report.dependencies.cache?.error).toBe('connection refused');
    expect(h.report.dependencies.database?.state).toBe('up');
    expect((await call(t.app, 'GET', '/api/health/ready')).statusCode).toBe(200);
    expect((await call(t.app, 'GET', '/api/health/live')).statusCode).toBe(200);

    expect(await metric(t.app, 'atrium_dependency_failures_total{dependency="cache"}')).toBeGreaterThan(0);
    expect(await metric(t.app, 'atrium_dependency_state{dependency="cache",state="down"}')).toBe(1);
    // one warning for the whole outage, not one per request
    expect(warnings('cache: Redis does not answer')).toHaveLength(1);
  });

  it('started again: the cache is used again and what was acknowledged meanwhile is there', async () => {
    const startedAt = performance.now();
    await redis.start();
    const recovered = await pollUntil('health says the cache is up', async () => {
      return (await health(t.app)).report.dependencies.cache?.state === 'up';
    });
    console.info(`redis-stopped: cache up again ${Math.round(performance.now() - startedAt)} ms after the restart`);
    expect(recovered).toBeGreaterThanOrEqual(0);
    expect((await health(t.app)).report.status).toBe('ok');
    expect(warnings('cache: Redis answers again')).toHaveLength(1);

    const captcha = await call(t.app, 'GET', '/api/auth/captcha?tenantCode=demo');
    expect(captcha.statusCode, captcha.body).toBe(200);
    expect(captcha.json().data.enabled).toBe(true);

    const user = await call(t.app, 'GET', `/api/users/${createdUserId}`, { token: t.demoAdminToken });
    expect(user.statusCode, user.body).toBe(200);
    expect(user.json().data.nickname).toBe('During the outage');

    // pub/sub through Redis again: the push still arrives, and principals are cached in Redis again
    const notice = await publishNotice('Published after Redis is back');
    await socket.waitFor(noticeEvent(notice));
    const direct = new Redis(redis.url);
    try {
      expect(await direct.keys(`${PREFIX}authz:principal:*`)).not.toHaveLength(0);
    } finally {
      direct.disconnect();
    }
    await socket.close();
  });
});

describe('Redis frozen and thawed', () => {
  it('calls fail within the bound; a sign-out made meanwhile holds after Redis thaws', async () => {
    const user = await createPlatformUserWithPermissions(t, []);
    // its principal is now cached in Redis, for up to a minute
    expect((await call(t.app, 'GET', '/api/auth/me', { token: user.token })).statusCode).toBe(200);

    redis.freeze();
    const me = expectAnswered(await timedCall(t.app, 'GET', '/api/auth/me', { token: user.token }), 'me, frozen');
    expect(me.statusCode).toBe(200);
    const logout = expectAnswered(
      await timedCall(t.app, 'POST', '/api/auth/logout', { token: user.token }),
      'sign-out, frozen',
    );
    expect(logout.statusCode, logout.body).toBe(200);
    expectError(await call(t.app, 'GET', '/api/auth/me', { token: user.token }), 401, 'auth.invalid_token');
    await pollUntil('health says degraded', async () => (await health(t.app)).report.status === 'degraded', 5_000);
    const h = await health(t.app);
    expect(h.report.dependencies.cache).toMatchObject({ state: 'down' });
    expect(h.report.dependencies.cache?.error).toMatch(/no answer within 1000 ms|timed out/);

    const thawedAt = performance.now();
    redis.thaw();
    await pollUntil('health says the cache is up', async () => {
      return (await health(t.app)).report.dependencies.cache?.state === 'up';
    });
    console.info(`redis-frozen: cache up again ${Math.round(performance.now() - thawedAt)} ms after the thaw`);
    // Redis still holds the principal cached before the freeze; the epoch bumped on recovery
    // makes every instance reload it, so the ended session stays ended
    expectError(await call(t.app, 'GET', '/api/auth/me', { token: user.token }), 401, 'auth.invalid_token');
  });
});
