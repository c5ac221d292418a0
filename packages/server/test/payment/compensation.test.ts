import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChannelCallError } from '../../src/modules/payment/channels/types.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { runTask } from '../open-platform/webhooks-helpers.ts';
import {
  age,
  ageRefund,
  countCalls,
  eventTypesOf,
  lostNoticeOrder,
  orderRow,
  sandboxAdapter,
} from './compensation-helpers.ts';
import { paidOrder, sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/**
 * The compensation jobs (issue 16 item 5): paymentReconciliation settles what a lost callback
 * left open by querying the channel; closeExpiredPaymentOrders closes expired unpaid orders after
 * a query. Both apply the channel's answer by applyNotice, the callback's path.
 */
let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  token = t.demoAdminToken;
  await sandboxConfig(t, token);
});
afterAll(async () => t?.close());
afterEach(() => vi.restoreAllMocks());

describe('paymentReconciliation', () => {
  it('settles an order stuck in paying that the channel says is paid, once; a fresh or unpaid one is left', async () => {
    const stuck = await lostNoticeOrder(t, token, 1200);
    const fresh = await lostNoticeOrder(t, token, 1300);
    const unpaid = await sandboxOrder(t, token, 1400);
    await age(t, [stuck.id, unpaid.id]);
    const queried = countCalls([sandboxAdapter(t)], 'queryOrder');

    const run = await t.app.payment.reconcilePayments();
    expect(run.orders).toMatchObject({ claimed: 2, errors: 0, outcomes: { applied: 1, pending: 1 } });
    expect(run.orders.movedTo).toEqual({ succeeded: 1 });
    expect([...queried.keys()].sort()).toEqual([stuck.orderNo, unpaid.orderNo].sort());
    expect(await orderRow(t, stuck.id)).toMatchObject({ status: 'succeeded', version: 2 });
    expect(await eventTypesOf(t, stuck.id)).toEqual(['payment.succeeded']);
    expect((await orderRow(t, fresh.id)).status).toBe('paying');
    expect((await orderRow(t, unpaid.id)).status).toBe('paying');

    // within the lease the unpaid order is not queried again; the settled one never is
    const again = await t.app.payment.reconcilePayments();
    expect(again.orders.claimed).toBe(0);
    expect(await eventTypesOf(t, stuck.id)).toEqual(['payment.succeeded']);
  });

  it('a channel error leaves the order as it was and is counted', async () => {
    const order = await lostNoticeOrder(t, token);
    await age(t, [order.id]);
    vi.spyOn(sandboxAdapter(t), 'queryOrder').mockRejectedValue(new ChannelCallError('connection refused'));
    const run = await t.app.payment.reconcilePayments();
    expect(run.orders).toMatchObject({ claimed: 1, errors: 1, outcomes: {} });
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying', version: 1 });
  });

  it('a refund whose creation call failed (unknown) is settled by the query answer', async () => {
    const order = await paidOrder(t, token, 3000);
    vi.spyOn(sandboxAdapter(t), 'createRefund').mockRejectedValueOnce(new ChannelCallError('timeout'));
    const created = await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
      token,
      body: { amount: 500 },
    });
    expect(created.json().data.status).toBe('unknown');
    const refund = created.json().data as { id: number; refundNo: string };
    await ageRefund(t, refund.id);
    vi.spyOn(sandboxAdapter(t), 'queryRefund').mockResolvedValue({
      scene: 'refund',
      orderNo: order.orderNo,
      refundNo: refund.refundNo,
      channelTradeNo: 'SBXR-1',
      amount: 500,
      currency: 'CNY',
      outcome: 'succeeded',
      occurredAt: new Date(),
      merchantId: null,
      payload: {},
    });
    const run = await t.app.payment.reconcilePayments();
    expect(run.refunds).toMatchObject({ claimed: 1, errors: 0, movedTo: { succeeded: 1 } });
    const read = await call(t.app, 'GET', `/api/payment/refunds/${refund.id}`, { token });
    expect(read.json().data).toMatchObject({ status: 'succeeded', channelRefundNo: 'SBXR-1' });
  });
});

describe('the system tasks', () => {
  it('are registered with the spec’s schedules and run the jobs through their handlers', async () => {
    const order = await lostNoticeOrder(t, token);
    await age(t, [order.id], { expired: true });
    expect(t.app.ctx.jobs.systemTask('payment.paymentReconciliation')?.schedule).toBe('*/10 * * * *');
    expect(t.app.ctx.jobs.systemTask('payment.closeExpiredPaymentOrders')?.schedule).toBe('*/5 * * * *');
    const run = (await runTask(t, 'payment.paymentReconciliation')) as { orders: { movedTo: object } };
    expect(run.orders.movedTo).toEqual({ succeeded: 1 });
    expect((await orderRow(t, order.id)).status).toBe('succeeded');
    expect(await runTask(t, 'payment.closeExpiredPaymentOrders')).toMatchObject({ claimed: 0 });
  });
});

describe('closeExpiredPaymentOrders', () => {
  it('closes an expired unpaid order at the channel and here, with payment.closed', async () => {
    const order = await sandboxOrder(t, token, 700);
    await age(t, [order.id], { expired: true });
    const closed = countCalls([sandboxAdapter(t)], 'closeOrder');
    const run = await t.app.payment.closeExpiredOrders();
    expect(run).toMatchObject({ claimed: 1, errors: 0, movedTo: { closed: 1 } });
    expect(closed.get(order.orderNo)).toBe(1);
    const row = await orderRow(t, order.id);
    expect(row.status).toBe('closed');
    expect(row.closedAt).toBeInstanceOf(Date);
    expect(await eventTypesOf(t, order.id)).toEqual(['payment.closed']);
  });

  it('an expired order paid at the channel becomes succeeded, never closed', async () => {
    const order = await lostNoticeOrder(t, token, 800);
    await age(t, [order.id], { expired: true });
    const closed = countCalls([sandboxAdapter(t)], 'closeOrder');
    const run = await t.app.payment.closeExpiredOrders();
    expect(run).toMatchObject({ claimed: 1, errors: 0, movedTo: { succeeded: 1 } });
    expect(closed.size).toBe(0);
    expect((await orderRow(t, order.id)).status).toBe('succeeded');
    expect(await eventTypesOf(t, order.id)).toEqual(['payment.succeeded']);
  });

  it('an order the channel does not know is closed here only; a failed close leaves it open', async () => {
    const unknownThere = await sandboxOrder(t, token);
    const closeFails = await sandboxOrder(t, token);
    await age(t, [unknownThere.id, closeFails.id], { expired: true });
    const adapter = sandboxAdapter(t);
    const query = adapter.queryOrder.bind(adapter);
    vi.spyOn(adapter, 'queryOrder').mockImplementation(async (config, orderNo, o) =>
      orderNo === unknownThere.orderNo ? null : query(config, orderNo, o),
    );
    const close = vi.spyOn(adapter, 'closeOrder').mockRejectedValue(new ChannelCallError('502 from the gateway'));
    const run = await t.app.payment.closeExpiredOrders();
    expect(run).toMatchObject({ claimed: 2, errors: 1, movedTo: { closed: 1 } });
    expect(close).toHaveBeenCalledTimes(1);
    expect((await orderRow(t, unknownThere.id)).status).toBe('closed');
    expect(await orderRow(t, closeFails.id)).toMatchObject({ status: 'paying', version: 1 });
  });

  it('the sandbox refuses to pay an expired order', async () => {
    const order = await sandboxOrder(t, token);
    await age(t, [order.id], { expired: true });
    for (const url of [
      `/api/payment/orders/${order.id}/sandbox/pay`,
      `/api/payment/orders/${order.id}/sandbox/pay?lostNotice=true`,
    ]) {
      expectError(await call(t.app, 'POST', url, { token }), 409, 'payment.order_expired');
    }
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying', paidAt: null });
  });
});
