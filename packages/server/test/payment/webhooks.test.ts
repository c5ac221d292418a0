import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { insertApp, type Receiver, startReceiver, waitFor } from '../open-platform/webhooks-helpers.ts';
import { paidOrder, sandboxConfig } from './payment-helpers.ts';

/** Payment events reach open-platform webhook subscriptions, written in the transaction of the move. */
let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` } });
  await sandboxConfig(t, t.demoAdminToken);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('payment events to webhooks', () => {
  it('payment.* is in the webhook catalog; a paid order is delivered once with the outbox eventId', async () => {
    const catalog = await call(t.app, 'GET', '/api/open-platform/webhook-events', { token: t.demoAdminToken });
    expect(catalog.json().data.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining([
        'payment.succeeded',
        'payment.closed',
        'payment.failed',
        'refund.succeeded',
        'refund.failed',
      ]),
    );
    const appId = await insertApp(t, t.demoTenantId);
    const sub = await call(t.app, 'POST', '/api/open-platform/webhooks', {
      token: t.demoAdminToken,
      body: { appId, url: `${receiver.origin}/pay`, events: ['payment.*'] },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const order = await paidOrder(t, t.demoAdminToken, 2500);
    const events = await call(t.app, 'GET', '/api/payment/ops/events?type=payment.succeeded', {
      token: t.demoAdminToken,
    });
    const eventId = events.json().data.list[0].eventId;
    const hit = await waitFor(async () => receiver.hits.find((h) => h.path === '/pay'), 'the webhook delivery');
    const body = JSON.parse(hit.body);
    expect(body).toMatchObject({ type: 'payment.succeeded', data: { eventId, orderNo: order.orderNo, amount: 2500 } });
    // a repeat of the payment changes nothing and sends nothing more: no second event, and when a
    // later order's delivery has arrived, still one for this order
    await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token: t.demoAdminToken });
    const after = await call(t.app, 'GET', '/api/payment/ops/events?type=payment.succeeded', {
      token: t.demoAdminToken,
    });
    expect(after.json().data.total).toBe(1);
    const later = await paidOrder(t, t.demoAdminToken, 700);
    const orderNos = () => receiver.hits.filter((h) => h.path === '/pay').map((h) => JSON.parse(h.body).data.orderNo);
    await waitFor(async () => orderNos().includes(later.orderNo), 'the later order’s delivery');
    expect(orderNos().sort()).toEqual([order.orderNo, later.orderNo].sort());
  });
});
