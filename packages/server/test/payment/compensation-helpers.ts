import { eq, inArray } from 'drizzle-orm';
import { expect, vi } from 'vitest';
import type { ChannelAdapter } from '../../src/modules/payment/channels/types.ts';
import { paymentEventRecords, paymentOrders, paymentRefunds } from '../../src/modules/payment/tables.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { sandboxOrder } from './payment-helpers.ts';

/** The sandbox adapter object the app calls, to spy on (the jobs reach the channel only through it). */
export function sandboxAdapter(t: TestApp): ChannelAdapter<unknown> {
  const entry = t.app.payment.adapters.get('sandbox');
  if (!entry) throw new Error('no sandbox adapter');
  return entry.adapter;
}

/** A sandbox order paid at the "channel" whose notice was lost: it stays paying. */
export async function lostNoticeOrder(t: TestApp, token: string, amount = 1000) {
  const order = await sandboxOrder(t, token, amount);
  const res = await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay?lostNotice=true`, { token });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data).toMatchObject({ order: { status: 'paying' }, result: { outcome: 'pending' } });
  return order;
}

/** Moves an order back in time: created 3 minutes ago (stale for the query job), and expired when asked. */
export async function age(t: TestApp, orderIds: number[], opts: { expired?: boolean } = {}) {
  const now = Date.now();
  await t.database.db
    .update(paymentOrders)
    .set({
      createdAt: new Date(now - 3 * 60_000),
      ...(opts.expired ? { expiresAt: new Date(now - 1000) } : {}),
    })
    .where(inArray(paymentOrders.id, orderIds));
}

export async function ageRefund(t: TestApp, refundId: number) {
  await t.database.db
    .update(paymentRefunds)
    .set({ createdAt: new Date(Date.now() - 3 * 60_000) })
    .where(eq(paymentRefunds.id, refundId));
}

export async function orderRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(paymentOrders).where(eq(paymentOrders.id, id));
  if (!row) throw new Error(`no order ${id}`);
  return row;
}

/** The outbox event types recorded for an order. */
export async function eventTypesOf(t: TestApp, orderId: number) {
  const rows = await t.database.db
    .select({ type: paymentEventRecords.type })
    .from(paymentEventRecords)
    .where(eq(paymentEventRecords.aggregateId, orderId));
  return rows.map((r) => r.type).sort();
}

/** Counts the channel calls of `method` per order number (or refund number). */
export function countCalls(adapters: ChannelAdapter<unknown>[], method: 'queryOrder' | 'closeOrder') {
  const calls = new Map<string, number>();
  for (const adapter of adapters) {
    const original = adapter[method].bind(adapter) as (...args: unknown[]) => Promise<unknown>;
    vi.spyOn(adapter, method).mockImplementation((async (config: unknown, orderNo: string, ...rest: unknown[]) => {
      calls.set(orderNo, (calls.get(orderNo) ?? 0) + 1);
      return original(config, orderNo, ...rest);
    }) as never);
  }
  return calls;
}
