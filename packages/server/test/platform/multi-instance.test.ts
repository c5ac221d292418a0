import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ADMIN_PASSWORD, createTwoInstances, type TestApp } from '../helpers/app.ts';
import { eventually } from '../helpers/assert.ts';

/**
 * Two instances of the service on one PostgreSQL and one Redis, spoken to over real HTTP
 * (ARCHITECTURE §6): whatever one instance decides about a session holds on the other.
 */
const enabled = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);

describe.runIf(enabled)('two instances on one database and one Redis', () => {
  let close: () => Promise<void>;
  let a: TestApp;
  let b: TestApp;
  let urlA: string;
  let urlB: string;

  beforeAll(async () => {
    ({ a, b, close } = await createTwoInstances());
    urlA = await listen(a);
    urlB = await listen(b);
  });
  afterAll(async () => close?.());

  it('accepts on B an access token issued by A', async () => {
    const tokens = await signIn(urlA);
    const me = await http(urlB, 'GET', '/api/auth/me', { token: tokens.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.data.user.username).toBe('admin');
  });

  it('revokes the session everywhere when a rotated refresh token is replayed on the other instance', async () => {
    const first = await signIn(urlA);
    const rotated = await http(urlB, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(rotated.status).toBe(200);
    const second = rotated.body.data as { accessToken: string; refreshToken: string };
    expect((await http(urlA, 'GET', '/api/auth/me', { token: second.accessToken })).status).toBe(200);

    const replay = await http(urlA, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('auth.refresh_token_reused');

    for (const url of [urlA, urlB]) {
      expect((await http(url, 'GET', '/api/auth/me', { token: second.accessToken })).status).toBe(401);
      expect((await http(url, 'GET', '/api/auth/me', { token: first.accessToken })).status).toBe(401);
    }
    const afterReplay = await http(urlB, 'POST', '/api/auth/refresh', { body: { refreshToken: second.refreshToken } });
    expect(afterReplay.status).toBe(401);
  });

  it('ends on A a session force-logged-out through B', async () => {
    const victim = await signIn(urlA);
    // warm A's principal cache, so the test also proves the cached entry is dropped
    expect((await http(urlA, 'GET', '/api/auth/me', { token: victim.accessToken })).status).toBe(200);
    const operator = await signIn(urlB);
    const sessionId = sessionIdOf(victim.accessToken);

    const res = await http(urlB, 'DELETE', `/api/online-sessions/${sessionId}`, { token: operator.accessToken });
    expect(res.status).toBe(200);

    const me = await http(urlA, 'GET', '/api/auth/me', { token: victim.accessToken });
    expect(me.status).toBe(401);
    expect(me.body.error).toBe('auth.invalid_token');
    expect((await http(urlB, 'GET', '/api/auth/me', { token: operator.accessToken })).status).toBe(200);
  });

  it('serves on A, at once, a setting changed through B (settings are cached on each instance)', async () => {
    const { accessToken } = await signIn(urlA);
    const minLength = async (url: string) =>
      (await http(url, 'GET', '/api/settings/security', { token: accessToken })).body.data.values.passwordMinLength;
    expect(await minLength(urlA)).toBe(8); // now cached on A
    const put = await http(urlB, 'PUT', '/api/settings/security', {
      token: accessToken,
      body: { passwordMinLength: 12 },
    });
    expect(put.status).toBe(200);
    expect(await eventually(async () => (await minLength(urlA)) === 12)).toBe(true);
    await http(urlB, 'PUT', '/api/settings/security', { token: accessToken, body: { passwordMinLength: 8 } });
    expect(await eventually(async () => (await minLength(urlA)) === 8)).toBe(true);
  });

  it('pushes to a WebSocket on A an event published on B', async () => {
    const { accessToken } = await signIn(urlA);
    const ws = new WebSocket(`${urlA.replace('http', 'ws')}/api/ws?access_token=${encodeURIComponent(accessToken)}`);
    const messages: { topic: string; data: unknown }[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (raw) => {
      messages.push(JSON.parse(String(raw)));
      for (const w of waiters.splice(0)) w();
    });
    const next = (topic: string) =>
      new Promise<{ topic: string; data: unknown }>((resolve, reject) => {
        const check = () => {
          const m = messages.find((x) => x.topic === topic);
          if (m) resolve(m);
          else waiters.push(check);
        };
        ws.once('close', (code) => reject(new Error(`socket closed (${code}) before "${topic}"`)));
        check();
      });
    try {
      await next('ready');
      await b.app.ctx.realtime.publish({ topic: 'test.cross_instance', tenantId: null, payload: { from: 'B' } });
      const event = await next('test.cross_instance');
      expect(event.data).toEqual({ from: 'B' });
    } finally {
      ws.close();
    }
  });
});

async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

async function http(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function signIn(base: string): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await http(base, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The session id (`sid`) named by an access token. */
function sessionIdOf(accessToken: string): number {
  const payload = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8'));
  return payload.sid;
}
