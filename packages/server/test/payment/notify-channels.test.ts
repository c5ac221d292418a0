import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestApp } from '../helpers/app.ts';
import { expectDocumented, type OpenApiDoc, openApiDoc } from '../helpers/documented.ts';
import {
  type Callback,
  type Channel,
  closeSims,
  configure,
  createOrder,
  deliver,
  eventsOf,
  formCallback,
  lastLogs,
  logsOf,
  notifyApp,
  orderRow,
  paidCallback,
  type Sims,
  startSims,
} from './notify-harness.ts';

/**
 * POST /api/public/payment/notify/{channel} end to end: orders created through the API at the
 * channel simulators, callbacks exactly as each simulator signs them, applied once through
 * applyNotice and acknowledged in the channel's own bytes.
 */
let sims: Sims;
let t: TestApp;
let token: string;
let doc: OpenApiDoc;

beforeAll(async () => {
  sims = await startSims();
  t = await notifyApp(sims);
  doc = await openApiDoc(t.app);
  token = t.demoAdminToken;
  for (const channel of ['channel_a', 'channel_b', 'channel_c'] as const) await configure(t, token, sims, channel);
});
afterAll(async () => {
  await t?.close();
  await closeSims(sims);
});

const SUCCESS: Record<Channel, { status: number; type: string | undefined; body: string }> = {
  channel_a: { status: 204, type: undefined, body: '' },
  channel_b: { status: 200, type: 'text/plain; charset=utf-8', body: 'success' },
  channel_c: { status: 200, type: 'text/plain; charset=utf-8', body: 'ok' },
};
const REFUSED: Record<Channel, { type: string; body: string }> = {
  channel_a: {
    type: 'application/json; charset=utf-8',
    body: '{"code":"FAIL","message":"signature verification failed"}',
  },
  channel_b: { type: 'text/plain; charset=utf-8', body: 'fail' },
  channel_c: { type: 'text/plain; charset=utf-8', body: 'fail' },
};

function tampered(channel: Channel, cb: Callback): Callback {
  const text = cb.rawBody.toString('utf8');
  const changed =
    channel === 'channel_a'
      ? text.replace('"summary":"', '"summary":"x')
      : channel === 'channel_b'
        ? text.replace(/total_amount=[^&]+/, 'total_amount=0.01')
        : text.replace(/txnAmt=\d+/, 'txnAmt=1');
  expect(changed).not.toBe(text);
  return { ...cb, rawBody: Buffer.from(changed, 'utf8') };
}

function expectAck(res: Awaited<ReturnType<typeof deliver>>, channel: Channel) {
  const want = SUCCESS[channel];
  expect(res.statusCode, res.body).toBe(want.status);
  expect(res.body).toBe(want.body);
  expect(res.headers['content-type']).toBe(want.type);
  expectDocumented(doc, 'POST', NOTIFY_PATH, res);
}

const NOTIFY_PATH = '/api/public/payment/notify/{channel}';

describe.each(['channel_a', 'channel_b', 'channel_c'] as const)('%s payment callback', (channel) => {
  it('a valid callback is applied once, acknowledged exactly, logged; a repeat changes nothing', async () => {
    const order = await createOrder(t, token, sims, channel);
    const cb = paidCallback(sims, channel, order.orderNo);
    expectAck(await deliver(t.app, channel, cb), channel);
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'succeeded', version: 2 });
    expect(await eventsOf(t, 'order', order.id)).toHaveLength(1);
    expectAck(await deliver(t.app, channel, cb), channel);
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'succeeded', version: 2 });
    expect(await eventsOf(t, 'order', order.id)).toHaveLength(1);
    const logs = await logsOf(t, order.orderNo);
    expect(logs.map((l) => l.result).sort()).toEqual(['applied', 'duplicate']);
    expect(logs[0]).toMatchObject({
      channel,
      scene: 'payment',
      signatureValid: true,
      tenantId: t.demoTenantId,
      rawBody: cb.rawBody.toString('utf8'),
    });
    if (channel === 'channel_a') {
      expect(logs[0]?.headers['wechatpay-serial']).toBe(cb.headers['wechatpay-serial']);
      expect(logs[0]?.headers['wechatpay-signature']).toMatch(/… \(\d+ chars\)$/);
    }
  });

  it('a tampered callback: 401 in the channel’s failure shape, a log row with signatureValid=false, nothing applied', async () => {
    const order = await createOrder(t, token, sims, channel);
    const res = await deliver(t.app, channel, tampered(channel, paidCallback(sims, channel, order.orderNo)));
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toBe(REFUSED[channel].type);
    expect(res.body).toBe(REFUSED[channel].body);
    expectDocumented(doc, 'POST', NOTIFY_PATH, res);
    const [log] = await lastLogs(t);
    expect(log).toMatchObject({ channel, signatureValid: false, result: 'invalid_signature', tenantId: null });
    expect(log?.message).toMatch(/^config \d+: /);
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying', version: 1 });
    expect(await eventsOf(t, 'order', order.id)).toHaveLength(0);
  });
});

describe('amount mismatch', () => {
  it('channel_a: a genuine callback whose amount differs from the order is logged, not applied', async () => {
    const order = await createOrder(t, token, sims, 'channel_a', 2500);
    sims.a.pay(order.orderNo);
    const cb = sims.a.paymentCallback(order.orderNo, { resource: { amount: { total: 1, currency: 'CNY' } } });
    expectAck(await deliver(t.app, 'channel_a', cb), 'channel_a');
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying' });
    expect(await eventsOf(t, 'order', order.id)).toHaveLength(0);
    const [log] = await logsOf(t, order.orderNo);
    expect(log).toMatchObject({ signatureValid: true, result: 'amount_mismatch' });
  });

  it('channel_c: the same with a txnAmt the channel signed', async () => {
    const order = await createOrder(t, token, sims, 'channel_c', 3000);
    const txn = sims.c.orders.get(order.orderNo);
    if (txn) txn.txnAmt = '2999';
    const cb = formCallback(sims.c.formBody(sims.c.pay(order.orderNo)));
    expectAck(await deliver(t.app, 'channel_c', cb), 'channel_c');
    expect(await orderRow(t, order.id)).toMatchObject({ status: 'paying' });
    expect((await logsOf(t, order.orderNo))[0]).toMatchObject({ result: 'amount_mismatch' });
  });
});

/** A paid order of the channel (its payment callback applied). */
async function paid(channel: Channel, amount = 1000) {
  const order = await createOrder(t, token, sims, channel, amount);
  expectAck(await deliver(t.app, channel, paidCallback(sims, channel, order.orderNo)), channel);
  return order;
}

async function refund(orderId: number, amount: number) {
  const res = await call(t.app, 'POST', `/api/payment/orders/${orderId}/refunds`, { token, body: { amount } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; refundNo: string; status: string };
}

const refundStatus = async (id: number) =>
  (await call(t.app, 'GET', `/api/payment/refunds/${id}`, { token })).json().data.status as string;

describe('refund callbacks', () => {
  it('channel_a: REFUND.SUCCESS moves the processing refund to succeeded once', async () => {
    const order = await paid('channel_a');
    const r = await refund(order.id, 400);
    expect(r.status).toBe('processing');
    sims.a.settleRefund(r.refundNo, 'SUCCESS');
    const cb = sims.a.refundCallback(r.refundNo);
    expectAck(await deliver(t.app, 'channel_a', cb), 'channel_a');
    expectAck(await deliver(t.app, 'channel_a', cb), 'channel_a');
    expect(await refundStatus(r.id)).toBe('succeeded');
    expect(await eventsOf(t, 'refund', r.id)).toHaveLength(1);
    const logs = await logsOf(t, order.orderNo);
    expect(
      logs
        .filter((l) => l.scene === 'refund')
        .map((l) => l.result)
        .sort(),
    ).toEqual(['applied', 'duplicate']);
  });

  it('channel_b: the notice carries the trade’s total refunded; the refund is queried for its own amount', async () => {
    const order = await paid('channel_b', 1000);
    const first = await refund(order.id, 300);
    expect(first.status).toBe('succeeded'); // the gateway refunds at once (fund_change=Y)
    // the second refund's call gets no usable answer: unknown at our end, done at the wallet
    sims.b.faults.push({ status: 502, body: '<html>bad gateway</html>' });
    const second = await refund(order.id, 500);
    expect(second.status).toBe('unknown');
    const at = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    sims.b.trades.get(order.orderNo)?.refunds.set(second.refundNo, { amount: '5.00', at });
    const body = sims.b.refundNotify(order.orderNo, second.refundNo);
    expect(body).toContain('refund_fee=8.00');
    expectAck(await deliver(t.app, 'channel_b', formCallback(body)), 'channel_b');
    expect(await refundStatus(second.id)).toBe('succeeded');
    expect(await eventsOf(t, 'refund', second.id)).toHaveLength(1);
    const log = (await logsOf(t, order.orderNo)).find((l) => l.scene === 'refund');
    expect(log).toMatchObject({ result: 'applied', signatureValid: true });
  });

  it('channel_c: the refund notice (orderNo from reqReserved) moves the refund once', async () => {
    const order = await paid('channel_c', 1500);
    const r = await refund(order.id, 1500);
    expect(r.status).toBe('processing');
    const cb = formCallback(sims.c.formBody(sims.c.settleRefund(r.refundNo)));
    expectAck(await deliver(t.app, 'channel_c', cb), 'channel_c');
    expectAck(await deliver(t.app, 'channel_c', cb), 'channel_c');
    expect(await refundStatus(r.id)).toBe('succeeded');
    expect(await eventsOf(t, 'refund', r.id)).toHaveLength(1);
  });
});

describe('the route', () => {
  it('a callback of a channel nobody configured enabled: 401 and a log row naming why', async () => {
    const res = await deliver(t.app, 'channel_b', formCallback('a=1'));
    expect(res.statusCode).toBe(401);
    const [log] = await lastLogs(t);
    expect(log).toMatchObject({ channel: 'channel_b', signatureValid: false, rawBody: 'a=1' });
  });

  it('a body past 64 KiB is refused with 413 before any verification; an unknown channel with 400', async () => {
    const big = formCallback(`a=${'x'.repeat(70 * 1024)}`);
    expect((await deliver(t.app, 'channel_c', big)).statusCode).toBe(413);
    const res = await deliver(t.app, 'sandbox' as Channel, formCallback('a=1'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'request.validation_failed' });
  });

  it('a processing error answers the channel’s failure ack (it resends) and is logged', async () => {
    const order = await paid('channel_b', 1000);
    sims.b.faults.push({ status: 502, body: 'x' });
    const r = await refund(order.id, 200);
    expect(r.status).toBe('unknown');
    const at = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
    sims.b.trades.get(order.orderNo)?.refunds.set(r.refundNo, { amount: '2.00', at });
    const body = sims.b.refundNotify(order.orderNo, r.refundNo);
    sims.b.faults.push({ status: 502, body: 'x' }); // the refund query fails
    const res = await deliver(t.app, 'channel_b', formCallback(body));
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('fail');
    const log = (await lastLogs(t))[0];
    expect(log).toMatchObject({ result: 'error', signatureValid: true, tenantId: t.demoTenantId });
    expect(await refundStatus(r.id)).toBe('unknown');
  });
});
