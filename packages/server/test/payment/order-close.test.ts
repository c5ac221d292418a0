import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEventRecords, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { closeSims, configure, createOrder, notifyApp, type Sims, startSims } from './notify-harness.ts';
import { paidOrder, sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/** POST /api/payment/orders/{id}/close: an operator closes an unpaid order, the channel asked first. */
let s: Sims;
let t: TestApp;
let token: string;
let other: TenantFixture;
let viewer: { token: string };

beforeAll(async () => {
  s = await startSims();
  t = await notifyApp(s);
  token = t.demoAdminToken;
  ({ other } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:order:view']);
  await sandboxConfig(t, token);
  await configure(t, token, s, 'channel_a');
});
afterAll(async () => {
  await t?.close();
  await closeSims(s);
});

const close = (id: number, as = token) => call(t.app, 'POST', `/api/payment/orders/${id}/close`, { token: as });
/** close requests the channel_a simulator received for an order number */
const closeCalls = (orderNo: string) =>
  s.a.requests.filter((r) => r.method === 'POST' && r.path.includes(`/out-trade-no/${orderNo}/close`)).length;
const eventTypes = async (id: number) =>
  (await t.database.db.select().from(paymentEventRecords).where(eq(paymentEventRecords.aggregateId, id)))
    .filter((e) => e.aggregateType === 'order')
    .map((e) => e.type);

describe('closing an order', () => {
  it('an unpaid order is closed at the channel, then here, with one payment.closed; a retry changes nothing', async () => {
    const order = await createOrder(t, token, s, 'channel_a');
    const res = await close(order.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.order.status).toBe('closed');
    expect(res.json().data.result).toMatchObject({ outcome: 'applied', status: 'closed' });
    // closed at the channel too: the payer can no longer pay it there
    expect(closeCalls(order.orderNo)).toBe(1);
    expect(await eventTypes(order.id)).toEqual(['payment.closed']);

    const again = await close(order.id);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.result.outcome).toBe('duplicate');
    expect(await eventTypes(order.id)).toEqual(['payment.closed']);
  });

  it('an order the payer paid meanwhile is answered succeeded, never closed over', async () => {
    const order = await createOrder(t, token, s, 'channel_a');
    s.a.pay(order.orderNo); // paid at the channel, its callback not arrived yet
    const res = await close(order.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.order.status).toBe('succeeded');
    expect(await eventTypes(order.id)).toEqual(['payment.succeeded']);
    expect(closeCalls(order.orderNo)).toBe(0);
  });

  it('the sandbox: closed here; a payment whose notice was lost is applied instead', async () => {
    const open = await sandboxOrder(t, token);
    expect((await close(open.id)).json().data.order.status).toBe('closed');
    const lost = await sandboxOrder(t, token);
    await call(t.app, 'POST', `/api/payment/orders/${lost.id}/sandbox/pay?lostNotice=true`, { token });
    expect((await close(lost.id)).json().data.order.status).toBe('succeeded');
  });

  it('a paid order cannot be closed (409, unchanged); an unreachable channel is 502 and changes nothing', async () => {
    const paid = await paidOrder(t, token);
    expectError(await close(paid.id), 409, 'payment.order_not_open');
    expect((await rowById(t, paymentOrders, paid.id))?.status).toBe('succeeded');

    const order = await createOrder(t, token, s, 'channel_a');
    s.a.fail('server-error');
    try {
      expectError(await close(order.id), 502, 'payment.channel_call_failed');
    } finally {
      s.a.fail(null);
    }
    expect((await rowById(t, paymentOrders, order.id))?.status).toBe('paying');
    expect(closeCalls(order.orderNo)).toBe(0);
    expect(await eventTypes(order.id)).toEqual([]);
  });

  it('another tenant’s order is not found; viewing is not enough to close', async () => {
    const order = await sandboxOrder(t, token);
    expectError(await close(order.id, other.adminToken), 404, 'payment.order_not_found');
    expectError(await close(order.id, viewer.token), 403, 'auth.permission_denied');
    expectError(await close(987654321), 404, 'payment.order_not_found');
    expect((await rowById(t, paymentOrders, order.id))?.status).toBe('paying');
  });
});
