import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { insertApp, type Receiver, startReceiver, waitFor } from '../open-platform/webhooks-helpers.ts';
import { paidOrder, sandboxConfig } from './payment-helpers.ts';

/**
 * The payment webhooks view (issue 16 item 6; spec §4.5): the payment center's own subscriptions
 * and their deliveries, payment.* and refund.* events only, under payment permissions, on
 * open-platform's tables.
 */
let t: TestApp;
let receiver: Receiver;
let token: string;
let other: TenantFixture;
let nobody: { token: string };
let viewer: { token: string };

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({ env: { EGRESS_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` } });
  token = t.demoAdminToken;
  await sandboxConfig(t, token);
  ({ other, nobody } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:webhook:view']);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const create = (body: object, as = token) => call(t.app, 'POST', '/api/payment/webhooks', { token: as, body });

describe('payment webhooks view', () => {
  it('subscribes, receives a payment event, lists and redelivers it, updates and deletes', async () => {
    const res = await create({ url: `${receiver.origin}/pay-view`, events: ['payment.*'], description: 'ERP' });
    expect(res.statusCode, res.body).toBe(201);
    const sub = res.json().data;
    expect(sub).toMatchObject({ appId: null, events: ['payment.*'], status: 'active' });
    expect(sub.secret).toEqual(expect.any(String));
    // the same row in open-platform's full view
    const open = await call(t.app, 'GET', `/api/open-platform/webhooks/${sub.id}`, { token });
    expect(open.json().data).toMatchObject({ id: sub.id, appId: null });
    const list = await call(t.app, 'GET', '/api/payment/webhooks', { token: viewer.token });
    expect(list.json().data.list.map((s: { id: number }) => s.id)).toEqual([sub.id]);

    const order = await paidOrder(t, token, 1800);
    const hit = await waitFor(async () => receiver.hits.find((h) => h.path === '/pay-view'), 'the delivery');
    expect(JSON.parse(hit.body)).toMatchObject({ type: 'payment.succeeded', data: { orderNo: order.orderNo } });
    const deliveries = await call(t.app, 'GET', `/api/payment/webhooks/deliveries?subscriptionId=${sub.id}`, {
      token: viewer.token,
    });
    expect(deliveries.statusCode, deliveries.body).toBe(200);
    const [delivery] = deliveries.json().data.list;
    expect(delivery).toMatchObject({ subscriptionId: sub.id, eventType: 'payment.succeeded' });
    const detail = await call(t.app, 'GET', `/api/payment/webhooks/deliveries/${delivery.id}`, { token });
    expect(detail.json().data.payload.data.orderNo).toBe(order.orderNo);
    const again = await call(t.app, 'POST', `/api/payment/webhooks/deliveries/${delivery.id}/redeliver`, { token });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data).toMatchObject({ eventId: delivery.eventId, redeliveryOf: delivery.id });
    await waitFor(async () => receiver.hits.filter((h) => h.path === '/pay-view').length === 2, 'the redelivery');

    const updated = await call(t.app, 'PUT', `/api/payment/webhooks/${sub.id}`, {
      token,
      body: { events: ['refund.succeeded', 'payment.closed'] },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().data.events).toEqual(['refund.succeeded', 'payment.closed']);
    const removed = await call(t.app, 'DELETE', `/api/payment/webhooks/${sub.id}`, { token });
    expect(removed.statusCode, removed.body).toBe(200);
    expectError(
      await call(t.app, 'GET', `/api/payment/webhooks/${sub.id}`, { token }),
      404,
      'open_platform.webhook_not_found',
    );
  });

  it('refuses events other than payment and refund ones (400 naming events), and other bad input', async () => {
    const url = `${receiver.origin}/bad`;
    for (const events of [['drive.node.created'], ['*'], ['payment.succeeded', 'webhook.test']])
      expectError(await create({ url, events }), 400, 'request.validation_failed', 'events');
    // a payment-like name that is not registered: the catalog check names the entry
    expectError(await create({ url, events: ['payment.refunded'] }), 400, 'request.validation_failed', 'events.0');
    expectError(await create({ url, events: [] }), 400, 'request.validation_failed');
    expectError(await create({ events: ['payment.*'] }), 400, 'request.validation_failed');
    expectError(await create({ url, events: ['payment.*'], appId: 1 }), 400, 'request.validation_failed');
    expectError(await create({ url: 'ftp://x', events: ['payment.*'] }), 400, 'request.validation_failed', 'url');
    const ok = await create({ url, events: ['refund.*'] });
    expect(ok.statusCode, ok.body).toBe(201);
    const id = ok.json().data.id;
    expectError(
      await call(t.app, 'PUT', `/api/payment/webhooks/${id}`, { token, body: { events: ['refund.*', 'drive.*'] } }),
      400,
      'request.validation_failed',
      'events',
    );
    expectError(await create({ url, events: ['payment.*'] }), 409, 'open_platform.webhook_exists', 'url');
  });

  it('another tenant sees none of it; a role without the codes is refused', async () => {
    const sub = (await create({ url: `${receiver.origin}/tenant`, events: ['payment.succeeded'] })).json().data;
    const other_ = other.adminToken;
    expectError(
      await call(t.app, 'GET', `/api/payment/webhooks/${sub.id}`, { token: other_ }),
      404,
      'open_platform.webhook_not_found',
    );
    expectError(
      await call(t.app, 'PUT', `/api/payment/webhooks/${sub.id}`, { token: other_, body: { description: 'x' } }),
      404,
      'open_platform.webhook_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/payment/webhooks/${sub.id}`, { token: other_ }),
      404,
      'open_platform.webhook_not_found',
    );
    const theirs = await call(t.app, 'GET', '/api/payment/webhooks', { token: other_ });
    expect(theirs.json().data.list).toEqual([]);
    const theirDeliveries = await call(t.app, 'GET', '/api/payment/webhooks/deliveries', { token: other_ });
    expect(theirDeliveries.json().data.list).toEqual([]);

    for (const [method, url] of [
      ['GET', '/api/payment/webhooks'],
      ['GET', '/api/payment/webhooks/deliveries'],
      ['POST', '/api/payment/webhooks'],
    ] as const)
      expectError(
        await call(t.app, method, url, {
          token: nobody.token,
          body: { url: 'https://93.184.215.14/x', events: ['payment.*'] },
        }),
        403,
        'auth.permission_denied',
      );
    // viewing is not managing
    expectError(
      await create({ url: 'https://93.184.215.14/y', events: ['payment.*'] }, viewer.token),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/payment/webhooks/${sub.id}`, { token: viewer.token }),
      403,
      'auth.permission_denied',
    );
    // the platform administrator has no tenant to take payment events in
    expectError(
      await create({ url: 'https://93.184.215.14/z', events: ['payment.*'] }, t.adminToken),
      403,
      'payment.tenant_only',
    );
  });

  it('an application’s subscription to payment events belongs to open-platform’s view only', async () => {
    const appId = await insertApp(t, t.demoTenantId);
    const appSub = await call(t.app, 'POST', '/api/open-platform/webhooks', {
      token,
      body: { appId, url: `${receiver.origin}/app`, events: ['payment.*'] },
    });
    expect(appSub.statusCode, appSub.body).toBe(201);
    const id = appSub.json().data.id;
    expectError(
      await call(t.app, 'GET', `/api/payment/webhooks/${id}`, { token }),
      404,
      'open_platform.webhook_not_found',
    );
    expectError(
      await call(t.app, 'PUT', `/api/payment/webhooks/${id}`, { token, body: { events: ['refund.*'] } }),
      404,
      'open_platform.webhook_not_found',
    );
    await paidOrder(t, token, 900);
    await waitFor(async () => receiver.hits.some((h) => h.path === '/app'), 'the application’s delivery');
    const all = await call(t.app, 'GET', '/api/open-platform/webhook-deliveries', { token });
    const appDelivery = all.json().data.list.find((d: { subscriptionId: number }) => d.subscriptionId === id);
    expect(appDelivery).toBeDefined();
    const view = await call(t.app, 'GET', '/api/payment/webhooks/deliveries', { token });
    expect(view.json().data.list.map((d: { id: number }) => d.id)).not.toContain(appDelivery.id);
    expectError(
      await call(t.app, 'POST', `/api/payment/webhooks/deliveries/${appDelivery.id}/redeliver`, { token }),
      404,
      'open_platform.webhook_delivery_not_found',
    );
  });
});
