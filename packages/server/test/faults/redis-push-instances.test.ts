import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTwoInstances, type TestApp } from '../helpers/app.ts';
import { connect, listenForSockets, type PushClient, type PushMessage } from '../helpers/ws-client.ts';
import { health, pollUntil, privateRedis } from './fault-helpers.ts';

/**
 * Live push across two instances while Redis is down (issue 27): pub/sub reaches only the
 * publishing instance's sockets then; once Redis is back, a socket on the other instance gets what
 * it missed from the event table — once, without reconnecting — and nothing it already had twice.
 */
let redis: Awaited<ReturnType<typeof privateRedis>>;
let pair: Awaited<ReturnType<typeof createTwoInstances>>;
let socket: PushClient;

beforeAll(async () => {
  redis = await privateRedis();
  pair = await createTwoInstances({
    env: { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `atrium-fault-push:${process.pid}:` },
  });
  // the user's browser is connected to instance b
  socket = await connect(await listenForSockets(pair.b), pair.b.demoAdminToken);
}, 90_000);

afterAll(async () => {
  await socket?.close();
  await pair?.close();
  await redis?.stop();
});

async function publishNotice(t: TestApp, title: string): Promise<number> {
  const created = await call(t.app, 'POST', '/api/notices', {
    token: t.demoAdminToken,
    body: { title, content: `<p>${title}</p>` },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().data.id as number;
  const published = await call(t.app, 'POST', `/api/notices/${id}/publish`, { token: t.demoAdminToken });
  expect(published.statusCode, published.body).toBe(200);
  return id;
}
const noticeEvent = (id: number) => (m: PushMessage) => m.topic === 'notice.published' && m.data.id === id;
const received = (id: number) => socket.messages.filter(noticeEvent(id)).length;
const cacheState = async (t: TestApp) => (await health(t.app)).report.dependencies.cache?.state;

describe('live push across instances while Redis is down', { timeout: 60_000 }, () => {
  it('before: a notice published on a reaches the socket on b', async () => {
    await socket.waitFor(noticeEvent(await publishNotice(pair.a, 'Before the outage')));
  });

  it('down: b’s own notice arrives at once; a’s waits for Redis, then arrives once, without a reconnect', async () => {
    await redis.stop();
    for (const t of [pair.a, pair.b])
      await pollUntil('the instance sees Redis down', async () => (await cacheState(t)) === 'down');

    const fromA = await publishNotice(pair.a, 'Published on a while Redis is down');
    const fromB = await publishNotice(pair.b, 'Published on b while Redis is down');
    await socket.waitFor(noticeEvent(fromB));
    expect(received(fromA)).toBe(0); // no path between the instances without Redis

    await redis.start();
    await socket.waitFor(noticeEvent(fromA));
    // the catch-up is in id order and skips what the socket had
    const ids = socket.messages.filter((m) => m.topic === 'notice.published').map((m) => m.data.id);
    expect(ids.slice(-2)).toEqual([fromB, fromA]);
    const after = await publishNotice(pair.a, 'After the outage');
    await socket.waitFor(noticeEvent(after)); // pub/sub across the instances again
    expect([received(fromA), received(fromB), received(after)]).toEqual([1, 1, 1]);
  });
});
