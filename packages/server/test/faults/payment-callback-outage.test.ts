import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { type Receiver, startReceiver, waitFor } from '../open-platform/webhooks-helpers.ts';
import {
  type Channel,
  closeSims,
  configure,
  createOrder,
  deliver,
  eventsOf,
  orderRow,
  paidCallback,
  type Sims,
  startSims,
} from '../payment/notify-harness.ts';
import { simulatorHosts } from '../payment/simulator/sims.ts';
import { type PgProxy, startPgProxy } from './pg-proxy.ts';

/**
 * A payment channel's callback that arrives while PostgreSQL is down (issue 27): the channel gets
 * its failure acknowledgement — a 503 where the failure is a 5xx, naming no address — in bounded
 * time, nothing is applied; the channel's resend after the database is back is applied once, the
 * merchant's webhook receives `payment.succeeded` exactly once, and a further resend changes nothing.
 */
const BOUND_MS = 5_000;

let store: TestStore;
let proxy: PgProxy;
let sims: Sims;
let receiver: Receiver;
let t: TestApp;

beforeAll(async () => {
  store = await createTestStore();
  proxy = await startPgProxy(store.url);
  sims = await startSims();
  receiver = await startReceiver();
  t = await createTestApp({
    store: { ...store, url: proxy.url },
    env: {
      EGRESS_ALLOW_HOSTS: `${simulatorHosts(sims)},127.0.0.1:${receiver.port}`,
      SECRET_KEYS: `test:${randomBytes(32).toString('base64')}`,
    },
    // the job runner's complaints while the database is away are expected here
    logDestination: new Writable({ write: (_c, _e, done) => done() }),
  });
  for (const channel of ['channel_a', 'channel_b', 'channel_c'] as const)
    await configure(t, t.demoAdminToken, sims, channel);
  const sub = await call(t.app, 'POST', '/api/payment/webhooks', {
    token: t.demoAdminToken,
    body: { url: `${receiver.origin}/erp`, events: ['payment.*'] },
  });
  expect(sub.statusCode, sub.body).toBe(201);
}, 90_000);

afterEach(async () => {
  await proxy.set('pass'); // a failed test leaves the database reachable for the next
});

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await store?.drop();
  await closeSims(sims);
  await receiver?.close();
});

/** What the channel reads as "not received, resend": its failure acknowledgement. */
const REFUSED: Record<Channel, { status: number; body: string }> = {
  channel_a: { status: 503, body: '{"code":"FAIL","message":"service temporarily unavailable, resend later"}' },
  channel_b: { status: 200, body: 'fail' },
  channel_c: { status: 503, body: 'fail' },
};
const RECEIVED: Record<Channel, { status: number; body: string }> = {
  channel_a: { status: 204, body: '' },
  channel_b: { status: 200, body: 'success' },
  channel_c: { status: 200, body: 'ok' },
};

const webhookHits = (orderNo: string) =>
  receiver.hits.filter((h) => h.path === '/erp' && JSON.parse(h.body).data?.orderNo === orderNo);

describe('a payment callback while the database is down', { timeout: 90_000 }, () => {
  it.each(['channel_a', 'channel_b', 'channel_c'] as const)(
    '%s: refused so the channel resends; the resend after is applied once and the webhook arrives once',
    async (channel) => {
      const order = await createOrder(t, t.demoAdminToken, sims, channel);
      const callback = paidCallback(sims, channel, order.orderNo);

      await proxy.set('refuse');
      const started = Date.now();
      const refused = await deliver(t.app, channel, callback);
      expect(Date.now() - started).toBeLessThan(BOUND_MS);
      expect({ status: refused.statusCode, body: refused.body }).toEqual(REFUSED[channel]);
      expect(refused.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|PostgreSQL/);

      await proxy.set('pass');
      expect((await orderRow(t, order.id))?.status).toBe('paying'); // nothing was applied meanwhile
      const resent = await deliver(t.app, channel, callback);
      expect({ status: resent.statusCode, body: resent.body }).toEqual(RECEIVED[channel]);
      expect((await orderRow(t, order.id))?.status).toBe('succeeded');

      const hit = await waitFor(async () => webhookHits(order.orderNo)[0], 'the merchant’s webhook');
      expect(JSON.parse(hit.body)).toMatchObject({ type: 'payment.succeeded', data: { orderNo: order.orderNo } });
      // the channel resends once more (it missed our answer): nothing new
      const again = await deliver(t.app, channel, callback);
      expect(again.statusCode).toBe(RECEIVED[channel].status);
      expect((await eventsOf(t, 'order', order.id)).filter((e) => e.type === 'payment.succeeded')).toHaveLength(1);
      expect(webhookHits(order.orderNo)).toHaveLength(1);
    },
  );
});
