import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { bOrderNo, eventsOf, type Harness, orderBody, startHarness } from './unreachable-harness.ts';

/**
 * Refunds whose channel cannot be reached (issue 24 item 3, refunds): one that never reached the
 * channel is failed at once with the reason and its amount released (502
 * payment.channel_unreachable naming the host and EGRESS_ALLOW_HOSTS); one sent without a
 * definite answer stays unknown with the reason, its amount still reserved.
 */
let h: Harness;
const REFUND = 'alipay.trade.refund';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** A channel_b order paid at the simulator and applied by a query: succeeded. */
async function paidOrder(amount = 1000) {
  const created = await call(h.allowed.app, 'POST', '/api/payment/orders', {
    token: h.token,
    body: orderBody(bOrderNo(), amount),
  });
  expect(created.statusCode, created.body).toBe(201);
  const order = created.json().data as { id: number; orderNo: string };
  h.sim.pay(order.orderNo);
  const queried = await call(h.allowed.app, 'POST', `/api/payment/orders/${order.id}/query`, { token: h.token });
  expect(queried.json().data.order.status).toBe('succeeded');
  return order;
}

const refund = (t: Harness['blocked'], orderId: number, amount: number) =>
  call(t.app, 'POST', `/api/payment/orders/${orderId}/refunds`, { token: h.token, body: { amount } });

const refundCalls = (orderNo: string) =>
  h.sim.received.filter((p) => p.method === REFUND && JSON.parse(p.biz_content ?? '{}').out_trade_no === orderNo)
    .length;

const refundable = async (orderId: number) =>
  (await call(h.allowed.app, 'GET', `/api/payment/orders/${orderId}`, { token: h.token })).json().data
    .refundableAmount as number;

describe('refunds whose channel cannot be reached', () => {
  it('never reached: 502 naming the host and variable; failed with the reason, refund.failed, amount released; a new refund then succeeds', async () => {
    const order = await paidOrder(1000);
    const res = await refund(h.blocked, order.id, 1000);
    expectError(res, 502, 'payment.channel_unreachable');
    expect(res.json().message).toContain(`EGRESS_ALLOW_HOSTS=${h.host}`);
    const failed = res.json().refund;
    expect(failed).toMatchObject({ status: 'failed', orderId: order.id });
    expect(failed.lastError).toContain(`the egress guard refused ${h.host}`);
    expect(refundCalls(order.orderNo)).toBe(0);
    expect(await eventsOf(h.blocked, 'refund', failed.id)).toEqual(['refund.failed']);
    expect(await refundable(order.id)).toBe(1000);
    const got = await call(h.blocked.app, 'GET', `/api/payment/refunds/${failed.id}`, { token: h.token });
    expect(got.json().data).toMatchObject({ status: 'failed', lastError: failed.lastError });
    expect(h.logs.some((l) => l.level === 40 && l.refundNo === failed.refundNo && l.reason === failed.lastError)).toBe(
      true,
    );

    const retried = await refund(h.allowed, order.id, 1000);
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json().data).toMatchObject({ status: 'succeeded', lastError: null });
    expect(refundCalls(order.orderNo)).toBe(1);
    expect(await refundable(order.id)).toBe(0);
  });

  it('sent without an answer: unknown with the reason, its amount still reserved', async () => {
    const order = await paidOrder(500);
    h.sim.faults.push({ drop: true });
    const res = await refund(h.allowed, order.id, 500);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'unknown' });
    expect(res.json().data.lastError).toContain(`${h.host}: the connection broke`);
    expect(refundCalls(order.orderNo)).toBe(1);
    expect(await eventsOf(h.allowed, 'refund', res.json().data.id)).toEqual([]);
    expectError(await refund(h.allowed, order.id, 1), 409, 'payment.refund_exceeds_amount');
  });
});
