import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelNotice } from '../../src/modules/payment/channels/types.ts';
import { paymentEventRecords, paymentOrders, paymentRefunds } from '../../src/modules/payment/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { orderNo, paidOrder, sandboxConfig, sandboxOrder } from './payment-helpers.ts';

/** Orders and refunds with the sandbox channel; every move through applyNotice. */
let t: TestApp;
let token: string;
let other: TenantFixture;
let nobody: { token: string };
let viewer: { token: string };

const eventsOf = (aggregateType: 'order' | 'refund', id: number) =>
  t.database.db
    .select()
    .from(paymentEventRecords)
    .where(eq(paymentEventRecords.aggregateId, id))
    .then((rows) => rows.filter((r) => r.aggregateType === aggregateType));

const paidNotice = (o: { orderNo: string }, amount: number): ChannelNotice => ({
  scene: 'payment',
  orderNo: o.orderNo,
  refundNo: null,
  channelTradeNo: `T-${o.orderNo}`,
  amount,
  currency: 'CNY',
  outcome: 'succeeded',
  occurredAt: new Date(),
  merchantId: null,
  payload: {},
});

beforeAll(async () => {
  t = await createTestApp();
  token = t.demoAdminToken;
  ({ other, nobody } = await twoTenants(t));
  viewer = await createUserWithPermissions(t, ['payment:order:view']);
  await sandboxConfig(t, token);
  await sandboxConfig(t, other.adminToken);
});
afterAll(async () => t?.close());

describe('orders', () => {
  it('creates a sandbox order in paying; the same orderNo and body answer the same order, another body 409', async () => {
    const no = orderNo();
    const order = await sandboxOrder(t, token, 1234, no);
    expect(order).toMatchObject({ status: 'paying', amount: 1234, orderNo: no });
    expect((order as unknown as { payPayload: { sandbox: boolean } }).payPayload.sandbox).toBe(true);
    const again = await sandboxOrder(t, token, 1234, no);
    expect(again.id).toBe(order.id);
    const changed = await call(t.app, 'POST', '/api/payment/orders', {
      token,
      body: { orderNo: no, amount: 999, channel: 'sandbox', subject: 'Test order' },
    });
    expectError(changed, 409, 'payment.order_no_conflict', 'orderNo');
    // the same number in another tenant is another order
    const theirs = await sandboxOrder(t, other.adminToken, 1234, no);
    expect(theirs.id).not.toBe(order.id);
  });

  it('concurrent creates of one orderNo make one order', async () => {
    const no = orderNo('C');
    const body = { orderNo: no, amount: 500, channel: 'sandbox', subject: 'Race' };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(t.app, 'POST', '/api/payment/orders', { token, body })),
    );
    expect(new Set(results.map((r) => r.json().data.id)).size).toBe(1);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const before = await rowCount(t, paymentOrders);
    const post = (body: object) => call(t.app, 'POST', '/api/payment/orders', { token, body });
    const base = { orderNo: orderNo(), amount: 100, channel: 'sandbox', subject: 'S' };
    expectError(await post({ ...base, amount: 0 }), 400, 'request.validation_failed', 'amount');
    expectError(await post({ ...base, amount: 1.5 }), 400, 'request.validation_failed', 'amount');
    expectError(await post({ ...base, currency: 'cny' }), 400, 'request.validation_failed', 'currency');
    expectError(await post({ ...base, orderNo: 'has space' }), 400, 'request.validation_failed', 'orderNo');
    expectError(await post({ ...base, channel: 'channel_b' }), 400, 'payment.channel_not_configured', 'channel');
    expectError(await post({ ...base, configId: 999999 }), 400, 'request.validation_failed', 'configId');
    expect(await rowCount(t, paymentOrders)).toBe(before);
  });

  it('lists with filters, reads one; other tenants and missing permissions are refused', async () => {
    const order = await sandboxOrder(t, token);
    const list = await call(t.app, 'GET', `/api/payment/orders?orderNo=${order.orderNo}&status=paying`, {
      token: viewer.token,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.list.map((o: { id: number }) => o.id)).toEqual([order.id]);
    expect((await call(t.app, 'GET', `/api/payment/orders/${order.id}`, { token: viewer.token })).statusCode).toBe(200);
    for (const [method, url] of [
      ['GET', `/api/payment/orders/${order.id}`],
      ['POST', `/api/payment/orders/${order.id}/sandbox/pay`],
      ['POST', `/api/payment/orders/${order.id}/query`],
    ] as const)
      expectError(await call(t.app, method, url, { token: other.adminToken }), 404, 'payment.order_not_found');
    expectError(
      await call(t.app, 'GET', '/api/payment/orders', { token: nobody.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token: viewer.token }),
      403,
      'auth.permission_denied',
    );
    expect((await rowById(t, paymentOrders, order.id))?.status).toBe('paying');
  });

  it('sandbox pay moves paying → succeeded once, with one payment.succeeded event; a repeat is a no-op', async () => {
    const order = await sandboxOrder(t, token, 700);
    const first = await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token });
    expect(first.json().data.result).toMatchObject({ outcome: 'applied', status: 'succeeded' });
    expect(first.json().data.order).toMatchObject({ status: 'succeeded', refundableAmount: 700 });
    const second = await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token });
    expect(second.json().data.result.outcome).toBe('duplicate');
    const events = await eventsOf('order', order.id);
    expect(events.map((e) => e.type)).toEqual(['payment.succeeded']);
    expect(events[0]?.eventId).toBe(first.json().data.result.eventId);
    const query = await call(t.app, 'POST', `/api/payment/orders/${order.id}/query`, { token });
    expect(query.json().data.result.outcome).toBe('duplicate');
  });

  it('one notice applied 50 times concurrently changes the state once and records one event', async () => {
    const order = await sandboxOrder(t, token, 4200);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.app.payment.applyNotice({ tenantId: t.demoTenantId }, paidNotice(order, 4200)),
      ),
    );
    expect(results.filter((r) => r.outcome === 'applied')).toHaveLength(1);
    expect(results.filter((r) => r.outcome === 'duplicate')).toHaveLength(49);
    expect(await eventsOf('order', order.id)).toHaveLength(1);
    expect((await rowById(t, paymentOrders, order.id))?.version).toBe(2);
  });

  it('an amount that differs from the order is not applied and is reported', async () => {
    const order = await sandboxOrder(t, token, 1000);
    const result = await t.app.payment.applyNotice({ tenantId: t.demoTenantId }, paidNotice(order, 999));
    expect(result.outcome).toBe('amount_mismatch');
    expect((await rowById(t, paymentOrders, order.id))?.status).toBe('paying');
    expect(await eventsOf('order', order.id)).toHaveLength(0);
    // another tenant's order of the same number is not reached
    expect((await t.app.payment.applyNotice({ tenantId: other.tenantId }, paidNotice(order, 1000))).outcome).toBe(
      'not_found',
    );
  });

  it('a closed order is final: a later payment notice is a conflict, not applied', async () => {
    const order = await sandboxOrder(t, token, 300);
    const closed = await t.app.payment.applyNotice(
      { tenantId: t.demoTenantId },
      { ...paidNotice(order, 300), outcome: 'closed' },
    );
    expect(closed).toMatchObject({ outcome: 'applied', status: 'closed' });
    const late = await t.app.payment.applyNotice({ tenantId: t.demoTenantId }, paidNotice(order, 300));
    expect(late).toMatchObject({ outcome: 'conflict', status: 'closed' });
    expect((await eventsOf('order', order.id)).map((e) => e.type)).toEqual(['payment.closed']);
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/sandbox/pay`, { token }),
      409,
      'payment.order_not_paying',
    );
  });
});

describe('refunds', () => {
  it('partial refunds succeed at once with the sandbox; never beyond the amount', async () => {
    const order = await paidOrder(t, token, 1000);
    const r1 = await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
      token,
      body: { amount: 600, reason: 'damaged', refundNo: orderNo('R') },
    });
    expect(r1.statusCode, r1.body).toBe(201);
    expect(r1.json().data).toMatchObject({ status: 'succeeded', amount: 600, orderId: order.id });
    const tooMuch = await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
      token,
      body: { amount: 401 },
    });
    expectError(tooMuch, 409, 'payment.refund_exceeds_amount', 'amount');
    const rest = await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, { token, body: { amount: 400 } });
    expect(rest.json().data.status).toBe('succeeded');
    const after = await call(t.app, 'GET', `/api/payment/orders/${order.id}`, { token });
    expect(after.json().data).toMatchObject({ refundedAmount: 1000, refundableAmount: 0 });
    const events = await eventsOf('refund', r1.json().data.id);
    expect(events.map((e) => e.type)).toEqual(['refund.succeeded']);

    const list = await call(t.app, 'GET', `/api/payment/refunds?orderId=${order.id}`, { token: viewer.token });
    expect(list.json().data.total).toBe(2);
    const one = await call(t.app, 'GET', `/api/payment/refunds/${r1.json().data.id}`, { token: viewer.token });
    expect(one.json().data.reason).toBe('damaged');
    const query = await call(t.app, 'POST', `/api/payment/refunds/${r1.json().data.id}/query`, { token });
    expect(query.json().data.result.outcome).toBe('duplicate');
  });

  it('concurrent partial refunds never exceed the order amount', async () => {
    const order = await paidOrder(t, token, 1000);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, { token, body: { amount: 150 } }),
      ),
    );
    const ok = results.filter((r) => r.statusCode === 201);
    expect(ok).toHaveLength(6);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 409, 'payment.refund_exceeds_amount');
    const refunds = await t.database.db.select().from(paymentRefunds).where(eq(paymentRefunds.orderId, order.id));
    expect(refunds.reduce((s, r) => s + r.amount, 0)).toBe(900);
    expect((await rowById(t, paymentOrders, order.id))?.refundedAmount).toBe(900);
  });

  it('refuses refunds of unpaid orders, bad amounts, a taken refundNo; other tenants and roles', async () => {
    const unpaid = await sandboxOrder(t, token);
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${unpaid.id}/refunds`, { token, body: { amount: 1 } }),
      409,
      'payment.order_not_refundable',
    );
    const order = await paidOrder(t, token, 500);
    const before = await rowCount(t, paymentRefunds);
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, { token, body: { amount: 0 } }),
      400,
      'request.validation_failed',
      'amount',
    );
    const no = orderNo('R');
    await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, { token, body: { amount: 1, refundNo: no } });
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
        token,
        body: { amount: 1, refundNo: no },
      }),
      409,
      'payment.refund_no_taken',
      'refundNo',
    );
    expect(await rowCount(t, paymentRefunds)).toBe(before + 1);
    // the taken number rolled its reservation back
    expect((await rowById(t, paymentOrders, order.id))?.refundedAmount).toBe(1);
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
        token: other.adminToken,
        body: { amount: 1 },
      }),
      404,
      'payment.order_not_found',
    );
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
        token: viewer.token,
        body: { amount: 1 },
      }),
      403,
      'auth.permission_denied',
    );
    const [refund] = await t.database.db.select().from(paymentRefunds).where(eq(paymentRefunds.orderId, order.id));
    for (const [method, url] of [
      ['GET', `/api/payment/refunds/${refund?.id}`],
      ['POST', `/api/payment/refunds/${refund?.id}/query`],
    ] as const)
      expectError(await call(t.app, method, url, { token: other.adminToken }), 404, 'payment.refund_not_found');
  });
});
