import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTwoInstances, type TestApp } from '../helpers/app.ts';
import { age, countCalls, eventTypesOf, lostNoticeOrder, orderRow, sandboxAdapter } from './compensation-helpers.ts';
import { sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/** Two service instances running a compensation job at the same moment: each order is queried once. */
let a: TestApp;
let b: TestApp;
let close: () => Promise<void>;
const N = 30;

beforeAll(async () => {
  ({ a, b, close } = await createTwoInstances());
  await sandboxConfig(a, a.demoAdminToken);
});
afterAll(async () => close?.());
afterEach(() => vi.restoreAllMocks());

describe('compensation jobs on two instances', () => {
  it('paymentReconciliation at once on both: every stuck order queried once and settled once', async () => {
    const orders = [];
    for (let i = 0; i < N; i++) orders.push(await lostNoticeOrder(a, a.demoAdminToken, 100 + i));
    await age(
      a,
      orders.map((o) => o.id),
    );
    const queried = countCalls([sandboxAdapter(a), sandboxAdapter(b)], 'queryOrder');
    const runs = await Promise.all([a.app.payment.reconcilePayments(), b.app.payment.reconcilePayments()]);
    // a scheduled run may take part too; whoever claims an order is the only one to query it
    expect(runs.reduce((n, r) => n + r.orders.claimed, 0)).toBeLessThanOrEqual(N);
    expect(runs.reduce((n, r) => n + r.orders.errors, 0)).toBe(0);
    expect([...queried.keys()].sort()).toEqual(orders.map((o) => o.orderNo).sort());
    expect([...queried.values()].every((n) => n === 1)).toBe(true);
    for (const o of orders) {
      expect((await orderRow(a, o.id)).status).toBe('succeeded');
      expect(await eventTypesOf(a, o.id)).toEqual(['payment.succeeded']);
    }
  });

  it('closeExpiredPaymentOrders at once on both: every expired order queried and closed once', async () => {
    const orders = [];
    for (let i = 0; i < N; i++) orders.push(await sandboxOrder(a, a.demoAdminToken, 200 + i));
    await age(
      a,
      orders.map((o) => o.id),
      { expired: true },
    );
    const adapters = [sandboxAdapter(a), sandboxAdapter(b)];
    const queried = countCalls(adapters, 'queryOrder');
    const closed = countCalls(adapters, 'closeOrder');
    await Promise.all([a.app.payment.closeExpiredOrders(), b.app.payment.closeExpiredOrders()]);
    for (const calls of [queried, closed]) {
      expect([...calls.keys()].sort()).toEqual(orders.map((o) => o.orderNo).sort());
      expect([...calls.values()].every((n) => n === 1)).toBe(true);
    }
    for (const o of orders) {
      expect((await orderRow(a, o.id)).status).toBe('closed');
      expect(await eventTypesOf(a, o.id)).toEqual(['payment.closed']);
    }
  });
});
