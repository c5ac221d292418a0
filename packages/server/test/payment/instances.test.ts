import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEventRecords, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call, createTwoInstances, type TestApp } from '../helpers/app.ts';
import { sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/** Two service instances on one database: applyNotice and the outbox sweep stay at most once. */
let a: TestApp;
let b: TestApp;
let close: () => Promise<void>;
const delivered: string[] = [];

beforeAll(async () => {
  ({ a, b, close } = await createTwoInstances());
  for (const inst of [a, b])
    inst.app.payment.subscribe('payment.succeeded', async (e) => void delivered.push(e.eventId));
  await sandboxConfig(a, a.demoAdminToken);
});
afterAll(async () => close?.());

describe('payments on two instances', () => {
  it('100 copies of one notice across both instances: one move, one event, delivered once', async () => {
    const order = await sandboxOrder(a, a.demoAdminToken, 900);
    const notice = {
      scene: 'payment' as const,
      orderNo: order.orderNo,
      refundNo: null,
      channelTradeNo: 'T-2',
      amount: 900,
      currency: 'CNY',
      outcome: 'succeeded' as const,
      occurredAt: new Date(),
      merchantId: null,
      payload: {},
    };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).app.payment.applyNotice({ tenantId: a.demoTenantId }, notice),
      ),
    );
    expect(results.filter((r) => r.outcome === 'applied')).toHaveLength(1);
    const events = await a.database.db
      .select()
      .from(paymentEventRecords)
      .where(eq(paymentEventRecords.aggregateId, order.id));
    expect(events).toHaveLength(1);
    await Promise.all([a.app.payment.dispatchPaymentEvents(), b.app.payment.dispatchPaymentEvents()]);
    expect(delivered.filter((id) => id === events[0]?.eventId)).toHaveLength(1);
    const [row] = await a.database.db.select().from(paymentOrders).where(eq(paymentOrders.id, order.id));
    expect(row).toMatchObject({ status: 'succeeded', version: 2 });
    const read = await call(b.app, 'GET', `/api/payment/orders/${order.id}`, { token: b.demoAdminToken });
    expect(read.json().data.status).toBe('succeeded');
  });
});
