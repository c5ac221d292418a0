import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentEvent } from '../../src/modules/payment/index.ts';
import { createApplyService } from '../../src/modules/payment/orders/apply-service.ts';
import { createOutboxService } from '../../src/modules/payment/outbox/outbox-service.ts';
import { paymentEventRecords, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { paidOrder, sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/** The payment event outbox (spec §3.1): delivery after commit, the minute sweep, dead letters, redispatch. */
let t: TestApp;
let token: string;
let other: TenantFixture;
let viewer: { token: string };
/** how many more deliveries of payment.succeeded the subscriber fails */
let failNext = 0;
const received: PaymentEvent[] = [];

const eventOfOrder = async (orderId: number) => {
  const [row] = await t.database.db
    .select()
    .from(paymentEventRecords)
    .where(eq(paymentEventRecords.aggregateId, orderId));
  return row;
};

beforeAll(async () => {
  t = await createTestApp();
  token = t.demoAdminToken;
  ({ other } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:order:view']);
  await sandboxConfig(t, token);
  t.app.payment.subscribe('payment.succeeded', async (event) => {
    if (failNext > 0) {
      failNext--;
      throw new Error('subscriber down');
    }
    received.push(event);
  });
});
afterAll(async () => t?.close());

describe('payment event outbox', () => {
  it('delivers right after commit: done, attempts 1, the subscriber got the eventId', async () => {
    const order = await paidOrder(t, token);
    const event = await eventOfOrder(order.id);
    expect(event).toMatchObject({ status: 'done', attempts: 1, type: 'payment.succeeded' });
    expect(received.map((e) => e.eventId)).toContain(event?.eventId);
    expect(received.find((e) => e.eventId === event?.eventId)?.payload).toMatchObject({ orderNo: order.orderNo });
  });

  it('a handler failing 5 times makes a dead letter; redispatch resets it and delivers it', async () => {
    failNext = 5;
    const order = await paidOrder(t, token);
    let event = await eventOfOrder(order.id);
    expect(event).toMatchObject({ status: 'pending', attempts: 1, lastError: 'subscriber down' });
    for (let i = 2; i <= 5; i++) {
      await t.app.payment.dispatchPaymentEvents();
      event = await eventOfOrder(order.id);
      expect(event?.attempts).toBe(i);
    }
    expect(event?.status).toBe('failed');
    // the sweep leaves dead letters alone
    await t.app.payment.dispatchPaymentEvents();
    expect((await eventOfOrder(order.id))?.attempts).toBe(5);

    const list = await call(t.app, 'GET', '/api/payment/ops/events?status=failed', { token });
    expect(list.json().data.list.map((e: { id: number }) => e.id)).toContain(event?.id);
    expectError(
      await call(t.app, 'POST', `/api/payment/ops/events/${event?.id}/redispatch`, { token: other.adminToken }),
      404,
      'payment.event_not_found',
    );
    expectError(
      await call(t.app, 'POST', `/api/payment/ops/events/${event?.id}/redispatch`, { token: viewer.token }),
      403,
      'auth.permission_denied',
    );
    const res = await call(t.app, 'POST', `/api/payment/ops/events/${event?.id}/redispatch`, { token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'done', attempts: 1, eventId: event?.eventId });
    expect(received.filter((e) => e.eventId === event?.eventId)).toHaveLength(1);
    expectError(
      await call(t.app, 'POST', `/api/payment/ops/events/${event?.id}/redispatch`, { token }),
      409,
      'payment.event_not_failed',
    );
    const one = await call(t.app, 'GET', `/api/payment/ops/events/${event?.id}`, { token });
    expect(one.json().data.status).toBe('done');
  });

  it('an event left behind (a crash between commit and delivery, or an expired lease) is delivered by the sweep', async () => {
    const order = await sandboxOrder(t, token);
    // a delivery that never finished: pending, leased by an instance that died a minute ago
    const outbox = createOutboxService({ db: t.database.db, clock: () => new Date(), log: t.app.ctx.log });
    const row = await t.database.db.transaction((tx) =>
      outbox.record(tx, {
        type: 'payment.succeeded',
        tenantId: t.demoTenantId,
        aggregateType: 'order',
        aggregateId: order.id,
        payload: { orderNo: order.orderNo },
      }),
    );
    await t.database.db
      .update(paymentEventRecords)
      .set({ leaseUntil: sql`now() - interval '1 minute'`, attempts: 1 })
      .where(eq(paymentEventRecords.id, row.id));
    const swept = await t.app.payment.dispatchPaymentEvents();
    expect(swept.done).toBeGreaterThanOrEqual(1);
    expect(await rowById(t, paymentEventRecords, row.id)).toMatchObject({ status: 'done', attempts: 2 });
    expect(received.map((e) => e.eventId)).toContain(row.eventId);
  });

  it('a rollback after the status move writes neither the move nor the event', async () => {
    const order = await sandboxOrder(t, token, 800);
    const outbox = createOutboxService({ db: t.database.db, clock: () => new Date(), log: t.app.ctx.log });
    const apply = createApplyService({
      db: t.database.db,
      clock: () => new Date(),
      outbox,
      emitWithin: () => async () => {
        throw new Error('webhook emission failed inside the transaction');
      },
    });
    await expect(
      apply.applyNotice(
        { tenantId: t.demoTenantId },
        {
          scene: 'payment',
          orderNo: order.orderNo,
          refundNo: null,
          channelTradeNo: 'T1',
          amount: 800,
          currency: 'CNY',
          outcome: 'succeeded',
          occurredAt: new Date(),
          merchantId: null,
          payload: {},
        },
      ),
    ).rejects.toThrow('webhook emission failed');
    expect((await rowById(t, paymentOrders, order.id))?.status).toBe('paying');
    expect(await eventOfOrder(order.id)).toBeUndefined();
  });

  it('the sweep is safe with concurrent sweepers: each pending event is delivered once', async () => {
    const before = received.length;
    const orders = await Promise.all(Array.from({ length: 5 }, () => sandboxOrder(t, token, 100)));
    failNext = 5; // every after-commit attempt fails, leaving five pending events
    for (const o of orders) await call(t.app, 'POST', `/api/payment/orders/${o.id}/sandbox/pay`, { token });
    expect(received.length).toBe(before);
    await Promise.all([t.app.payment.dispatchPaymentEvents(), t.app.payment.dispatchPaymentEvents()]);
    expect(received.length).toBe(before + 5);
  });
});
