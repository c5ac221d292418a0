import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelAdapter, ChannelNotice } from '../../src/modules/payment/channels/types.ts';
import { ChannelCallError } from '../../src/modules/payment/channels/types.ts';
import { paymentEventRecords, paymentOrders } from '../../src/modules/payment/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { orderNo } from './payment-helpers.ts';

/**
 * Channel answers other than success, through a scripted adapter registered for channel_b: a
 * refusal fails the order (payment.failed), an unreachable channel leaves it unknown until a
 * query answers; refunds likewise. And the licence gate.
 */
let t: TestApp;
let token: string;
let mode: 'refuse' | 'unreachable' | 'ok' = 'ok';
let queryAnswer: ChannelNotice | null = null;

const scripted: ChannelAdapter<unknown> = {
  code: 'channel_b',
  checkConfig: () => [],
  verifyCallback: async () => ({ valid: false, reason: 'not used' }),
  ack: {
    success: { status: 200, contentType: 'text/plain', body: 'success' },
    failure: () => ({ status: 500, contentType: 'text/plain', body: 'fail' }),
  },
  async createPayment(_c, order) {
    if (mode === 'refuse') throw new Error('ACQ.TRADE_HAS_CLOSE');
    if (mode === 'unreachable') throw new ChannelCallError('timeout');
    return { payload: { qr: 'x' }, channelTradeNo: `B-${order.orderNo}` };
  },
  queryOrder: async () => queryAnswer,
  closeOrder: async () => {},
  async createRefund() {
    throw new ChannelCallError('timeout');
  },
  queryRefund: async () => queryAnswer,
};

beforeAll(async () => {
  t = await createTestApp();
  token = t.demoAdminToken;
  t.app.payment.adapters.add(scripted, () => ({}));
  const cfg = await call(t.app, 'POST', '/api/payment/channel-configs', {
    token,
    body: {
      channel: 'channel_b',
      name: 'B',
      fields: { appId: '2021', walletPublicKey: 'k' },
      secrets: { appPrivateKey: 'k' },
    },
  });
  expect(cfg.statusCode, cfg.body).toBe(201);
});
afterAll(async () => t?.close());

const create = (amount = 100) =>
  call(t.app, 'POST', '/api/payment/orders', {
    token,
    // channel_b order numbers: letters, digits and _
    body: { orderNo: orderNo('B').replaceAll('-', '_'), amount, channel: 'channel_b', subject: 'B' },
  });

describe('channel failures', () => {
  it('a refused creation fails the order with one payment.failed event', async () => {
    mode = 'refuse';
    const res = await create();
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', lastError: 'ACQ.TRADE_HAS_CLOSE' });
    const events = await t.database.db
      .select()
      .from(paymentEventRecords)
      .where(eq(paymentEventRecords.aggregateId, res.json().data.id));
    expect(events.filter((e) => e.aggregateType === 'order').map((e) => e.type)).toEqual(['payment.failed']);
  });

  it('an unreachable channel leaves the order unknown; a query answer settles it by the same path', async () => {
    mode = 'unreachable';
    const res = await create(300);
    const order = res.json().data;
    expect(order).toMatchObject({ status: 'unknown', lastError: 'timeout' });
    queryAnswer = {
      scene: 'payment',
      orderNo: order.orderNo,
      refundNo: null,
      channelTradeNo: 'B-1',
      amount: 300,
      currency: 'CNY',
      outcome: 'pending',
      occurredAt: null,
      merchantId: null,
      payload: {},
    };
    const pending = await call(t.app, 'POST', `/api/payment/orders/${order.id}/query`, { token });
    expect(pending.json().data).toMatchObject({ result: { outcome: 'pending' }, order: { status: 'paying' } });
    queryAnswer = { ...queryAnswer, outcome: 'succeeded', occurredAt: new Date() };
    const paid = await call(t.app, 'POST', `/api/payment/orders/${order.id}/query`, { token });
    expect(paid.json().data).toMatchObject({ result: { outcome: 'applied' }, order: { status: 'succeeded' } });

    // a refund whose call times out is unknown, its amount still reserved
    const refund = await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, {
      token,
      body: { amount: 300 },
    });
    expect(refund.json().data).toMatchObject({ status: 'unknown', lastError: 'timeout' });
    expectError(
      await call(t.app, 'POST', `/api/payment/orders/${order.id}/refunds`, { token, body: { amount: 1 } }),
      409,
      'payment.refund_exceeds_amount',
    );
    // the channel says it failed: the reservation is released
    queryAnswer = {
      ...queryAnswer,
      scene: 'refund',
      refundNo: refund.json().data.refundNo,
      outcome: 'failed',
    };
    const failed = await call(t.app, 'POST', `/api/payment/refunds/${refund.json().data.id}/query`, { token });
    expect(failed.json().data).toMatchObject({
      result: { outcome: 'applied', status: 'failed' },
      refund: { status: 'failed' },
    });
    const [row] = await t.database.db.select().from(paymentOrders).where(eq(paymentOrders.id, order.id));
    expect(row?.refundedAmount).toBe(0);
  });

  it('an order number the channel refuses is refused before any order exists (channel_c: 8-32 letters and digits)', async () => {
    // scripted too: the configuration's keys do not matter to a refusal that precedes any call
    t.app.payment.adapters.add({ ...scripted, code: 'channel_c' }, () => ({}));
    const cfg = await call(t.app, 'POST', '/api/payment/channel-configs', {
      token,
      body: {
        channel: 'channel_c',
        name: 'C',
        fields: { merId: '1', signCertPem: 's', rootCertPem: 'r', middleCertPem: 'm' },
        secrets: { signKeyPem: 'k' },
      },
    });
    expect(cfg.statusCode, cfg.body).toBe(201);
    const res = await call(t.app, 'POST', '/api/payment/orders', {
      token,
      body: { orderNo: orderNo('C'), amount: 1, channel: 'channel_c', subject: 'C' },
    });
    expectError(res, 400, 'request.validation_failed', 'orderNo');
  });
});

describe('licence', () => {
  it('an edition without the payment feature answers 403 license.feature_disabled', async () => {
    const gated = await createTestApp({ license: JSON.stringify({ licensee: 'x', features: ['drive'] }) });
    try {
      expectError(
        await call(gated.app, 'GET', '/api/payment/orders', { token: gated.demoAdminToken }),
        403,
        'license.feature_disabled',
      );
    } finally {
      await gated.close();
    }
  });
});
