import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentEventRecords, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant } from '../helpers/fixtures.ts';
import { age, orderRow } from './compensation-helpers.ts';
import { bOrderNo, eventsOf, gatewayCalls, type Harness, orderBody, startHarness } from './unreachable-harness.ts';

/**
 * Issue 24 item 3: an order whose creation never reached its channel (here: the egress guard
 * refuses the channel_b simulator's loopback port) is answered 502 payment.channel_unreachable
 * naming the host and EGRESS_ALLOW_HOSTS, stored `unsent` with that reason, logged, and retried
 * when posted again — once, across instances; an order that did reach the channel is never
 * created again. Real HTTP to the simulator, real PostgreSQL, three instances on one database.
 */
let h: Harness;
const PRECREATE = 'alipay.trade.precreate';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const post = (t: Harness['blocked'], body: object, token = h.token) =>
  call(t.app, 'POST', '/api/payment/orders', { token, body });

/** An order created while the simulator is refused: 502, stored unsent. */
async function unsentOrder(no = bOrderNo()) {
  const res = await post(h.blocked, orderBody(no));
  expectError(res, 502, 'payment.channel_unreachable');
  return res.json().order as { id: number; orderNo: string; status: string; lastError: string; version: number };
}

describe('an order whose channel the egress guard refuses', () => {
  it('is answered 502 naming the host and EGRESS_ALLOW_HOSTS; stored unsent with that reason; nothing sent, no event; logged at warn', async () => {
    const no = bOrderNo();
    const eventsBefore = await rowCount(h.blocked, paymentEventRecords);
    const res = await post(h.blocked, orderBody(no));
    expectError(res, 502, 'payment.channel_unreachable');
    const body = res.json();
    const allow = `EGRESS_ALLOW_HOSTS=${h.host}`;
    expect(body.message).toContain(`the egress guard refused ${h.host}`);
    expect(body.message).toContain(allow);
    expect(body.order).toMatchObject({ orderNo: no, status: 'unsent', payPayload: null, channelTradeNo: null });
    expect(body.order.lastError).toContain(`the egress guard refused ${h.host}`);
    expect(body.order.lastError).toContain(allow);
    // no secret in the stored reason
    expect(body.order.lastError).not.toContain(h.sim.appPrivateKeyPem.split('\n')[1]);

    // the record says the same, in the order and in the list
    const got = await call(h.blocked.app, 'GET', `/api/payment/orders/${body.order.id}`, { token: h.token });
    expect(got.json().data).toMatchObject({ status: 'unsent', lastError: body.order.lastError });
    const listed = await call(h.blocked.app, 'GET', `/api/payment/orders?status=unsent&orderNo=${no}`, {
      token: h.token,
    });
    expect(listed.json().data.list).toMatchObject([{ id: body.order.id, lastError: body.order.lastError }]);

    expect(gatewayCalls(h.sim, PRECREATE, no)).toBe(0);
    expect(await rowCount(h.blocked, paymentEventRecords)).toBe(eventsBefore);
    const warned = h.logs.filter((l) => l.level === 40 && l.orderNo === no);
    expect(warned).toHaveLength(1);
    expect(warned[0]?.reason).toBe(body.order.lastError);
  });

  it('posted again while still refused: 502 again, still unsent, still nothing sent', async () => {
    const order = await unsentOrder();
    const again = await post(h.blocked, orderBody(order.orderNo));
    expectError(again, 502, 'payment.channel_unreachable');
    expect(again.json().order).toMatchObject({ id: order.id, status: 'unsent' });
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(0);
  });

  it('posted again once the host is allowed: reaches the channel, answers pay details, the reason cleared', async () => {
    const order = await unsentOrder();
    const retried = await post(h.allowed, orderBody(order.orderNo));
    expect(retried.statusCode, retried.body).toBe(201);
    expect(retried.json().data).toMatchObject({ id: order.id, status: 'paying', lastError: null });
    expect(retried.json().data.payPayload.qrCode).toMatch(/^https:\/\/qr\.alipay\.com\//);
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(1);
    // a paying order posted again is answered as it is: no second creation
    const repeat = await post(h.allowed, orderBody(order.orderNo));
    expect(repeat.statusCode).toBe(201);
    expect(repeat.json().data).toMatchObject({ id: order.id, status: 'paying' });
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(1);
    expect(await eventsOf(h.allowed, 'order', order.id)).toEqual([]);
  });

  it('two concurrent retries on two instances call the channel once', async () => {
    const order = await unsentOrder();
    const [a, b] = await Promise.all([
      post(h.allowed, orderBody(order.orderNo)),
      post(h.allowed2, orderBody(order.orderNo)),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect([a.json().data.id, b.json().data.id]).toEqual([order.id, order.id]);
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(1);
    const row = await orderRow(h.allowed, order.id);
    expect(row.status).toBe('paying');
    expect(row.payPayload).toMatchObject({ qrCode: expect.any(String) });
    // unsent → paying is one move, whoever made it
    expect(row.version).toBe(order.version + 1);
  });

  it('an expired unsent order is not retried: 409 payment.order_expired, nothing sent', async () => {
    const order = await unsentOrder();
    await h.allowed.database.db
      .update(paymentOrders)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(paymentOrders.id, order.id));
    expectError(await post(h.allowed, orderBody(order.orderNo)), 409, 'payment.order_expired');
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(0);
    expect((await orderRow(h.allowed, order.id)).status).toBe('unsent');
  });

  it('bad input is still 400 naming the field, another body 409; neither retries', async () => {
    const order = await unsentOrder();
    const before = await rowCount(h.allowed, paymentOrders);
    expectError(
      await post(h.allowed, { ...orderBody(order.orderNo), amount: 0 }),
      400,
      'request.validation_failed',
      'amount',
    );
    expectError(
      await post(h.allowed, { ...orderBody(order.orderNo), expiresInMinutes: 0 }),
      400,
      'request.validation_failed',
      'expiresInMinutes',
    );
    expectError(await post(h.allowed, orderBody(order.orderNo, 1)), 409, 'payment.order_no_conflict', 'orderNo');
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(0);
    expect(await rowCount(h.allowed, paymentOrders)).toBe(before);
    expect((await orderRow(h.allowed, order.id)).status).toBe('unsent');
  });

  it('another tenant can neither see nor retry it: its own post of the number is its own order', async () => {
    const order = await unsentOrder();
    const other = await createTenant(h.allowed);
    const token = other.adminToken;
    for (const [method, url] of [
      ['GET', `/api/payment/orders/${order.id}`],
      ['POST', `/api/payment/orders/${order.id}/query`],
      ['POST', `/api/payment/orders/${order.id}/close`],
    ] as const) {
      expectError(await call(h.allowed.app, method, url, { token }), 404, 'payment.order_not_found');
    }
    // no channel_b configuration in that tenant: refused before any order exists
    expectError(await post(h.allowed, orderBody(order.orderNo), token), 400, 'payment.channel_not_configured');
    const row = await orderRow(h.allowed, order.id);
    expect(row).toMatchObject({ status: 'unsent', version: order.version });
    expect(gatewayCalls(h.sim, PRECREATE, order.orderNo)).toBe(0);
  });
});

describe('an order that reached its channel without a definite answer', () => {
  it('is unknown with the reason, and posting it again never creates it again', async () => {
    const no = bOrderNo();
    h.sim.faults.push({ drop: true }); // the simulator makes the trade, the answer is lost
    const res = await post(h.allowed, orderBody(no));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'unknown', payPayload: null });
    expect(res.json().data.lastError).toContain(`${h.host}: the connection broke`);
    expect(gatewayCalls(h.sim, PRECREATE, no)).toBe(1);
    const warned = h.logs.filter((l) => l.level === 40 && l.orderNo === no);
    expect(warned.map((l) => l.reason)).toEqual([res.json().data.lastError]);

    const again = await post(h.allowed, orderBody(no));
    expect(again.statusCode).toBe(201);
    expect(again.json().data).toMatchObject({ id: res.json().data.id, status: 'unknown' });
    expect(gatewayCalls(h.sim, PRECREATE, no)).toBe(1);
  });
});

describe('queries, closes and the jobs', () => {
  it('a manual query of an unsent order is 409 payment.order_not_sent and asks nothing', async () => {
    const order = await unsentOrder();
    const res = await call(h.allowed.app, 'POST', `/api/payment/orders/${order.id}/query`, { token: h.token });
    expectError(res, 409, 'payment.order_not_sent');
    expect(res.json().message).toContain(h.host);
    expect(gatewayCalls(h.sim, 'alipay.trade.query', order.orderNo)).toBe(0);
  });

  it('an operator closes an unsent order here only (payment.closed), even while the host is still refused', async () => {
    const order = await unsentOrder();
    const res = await call(h.blocked.app, 'POST', `/api/payment/orders/${order.id}/close`, { token: h.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ result: { outcome: 'applied' }, order: { status: 'closed' } });
    expect(await eventsOf(h.blocked, 'order', order.id)).toEqual(['payment.closed']);
    expect(h.sim.received.filter((p) => p.biz_content?.includes(order.orderNo))).toHaveLength(0);
  });

  it('reconciliation never queries an unsent order; the expiry job closes it without a call', async () => {
    const order = await unsentOrder();
    await age(h.blocked, [order.id]);
    await h.allowed.app.payment.reconcilePayments();
    const row = await orderRow(h.allowed, order.id);
    expect(row).toMatchObject({ status: 'unsent', queryLeaseUntil: null });

    await age(h.blocked, [order.id], { expired: true });
    await h.blocked.app.payment.closeExpiredOrders();
    expect((await orderRow(h.blocked, order.id)).status).toBe('closed');
    expect(await eventsOf(h.blocked, 'order', order.id)).toEqual(['payment.closed']);
    expect(h.sim.received.filter((p) => p.biz_content?.includes(order.orderNo))).toHaveLength(0);
  });
});

describe('the API description', () => {
  it('declares the unsent status, lastError and the 502 with the order', async () => {
    const doc = (await call(h.blocked.app, 'GET', '/api/openapi.json')).json();
    const create = doc.paths['/api/payment/orders'].post;
    expect(create.description).toContain('payment.channel_unreachable');
    const unreachable = create.responses['502'].content['application/json'].schema;
    expect(Object.keys(unreachable.properties)).toEqual(expect.arrayContaining(['error', 'message', 'order']));
    const order = unreachable.properties.order;
    expect(order.properties.lastError.description).toContain('EGRESS_ALLOW_HOSTS');
    expect(order.properties.status.description).toContain('unsent');
    expect(JSON.stringify(order.properties.status)).toContain('"unsent"');
    const query = doc.paths['/api/payment/orders/{id}/query'].post;
    expect(query.description).toContain('payment.order_not_sent');
    expect(query.responses['502']).toBeDefined();
  });
});
