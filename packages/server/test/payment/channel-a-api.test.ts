import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelCallError } from '../../src/modules/payment/channels/types.ts';
import { channelAHarness, order } from './channel-a-harness.ts';

/** channel_a merchant APIs against the simulator: signed requests, verified answers, errors as ChannelCallError. */
describe('channel_a merchant APIs', () => {
  let h: Awaited<ReturnType<typeof channelAHarness>>;
  beforeAll(async () => {
    h = await channelAHarness();
  });
  afterAll(() => h.sim.close());

  const refund = (orderNo: string, refundNo: string, amount: number) => ({
    orderNo,
    refundNo,
    channelTradeNo: null,
    amount,
    orderAmount: 1999,
    currency: 'CNY',
    reason: null,
    notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_a',
  });

  it('creates a Native payment: a code_url, the order sent as the channel expects', async () => {
    const expiresAt = new Date('2026-11-24T10:30:00Z');
    const start = await h.adapter.createPayment(h.sim.config(), { ...order('P1'), expiresAt });
    expect(start).toEqual({
      payload: { codeUrl: expect.stringMatching(/^weixin:\/\/wxpay\/bizpayurl\?pr=/) },
      channelTradeNo: null,
    });
    const sent = JSON.parse(h.sim.requests.find((r) => r.path === '/v3/pay/transactions/native')?.body ?? '{}');
    expect(sent).toMatchObject({
      appid: h.sim.appId,
      mchid: h.sim.mchId,
      out_trade_no: 'P1',
      time_expire: '2026-11-24T18:30:00+08:00',
      amount: { total: 1999, currency: 'CNY' },
    });
  });

  it('queries an order: pending before payment, succeeded after; unknown → null', async () => {
    expect(await h.adapter.queryOrder(h.sim.config(), 'P1')).toMatchObject({
      scene: 'payment',
      outcome: 'pending',
      amount: 1999,
      channelTradeNo: null,
    });
    h.sim.pay('P1');
    expect(await h.adapter.queryOrder(h.sim.config(), 'P1')).toMatchObject({
      outcome: 'succeeded',
      channelTradeNo: expect.stringMatching(/^42000/),
    });
    expect(await h.adapter.queryOrder(h.sim.config(), 'NOPE')).toBeNull();
  });

  it('closes an unpaid order (204), and a close of a paid order is a ChannelCallError with the channel code', async () => {
    await h.adapter.createPayment(h.sim.config(), order('P2'));
    await h.adapter.closeOrder(h.sim.config(), 'P2');
    expect(await h.adapter.queryOrder(h.sim.config(), 'P2')).toMatchObject({ outcome: 'closed' });
    await expect(h.adapter.closeOrder(h.sim.config(), 'P1')).rejects.toMatchObject({
      name: 'ChannelCallError',
      detail: { status: 400, code: 'ORDERPAID' },
    });
  });

  it('creates and queries a refund; unknown refund → null', async () => {
    expect(await h.adapter.createRefund(h.sim.config(), refund('P1', 'R1', 700))).toMatchObject({
      scene: 'refund',
      orderNo: 'P1',
      refundNo: 'R1',
      amount: 700,
      outcome: 'pending',
    });
    h.sim.settleRefund('R1', 'SUCCESS');
    expect(await h.adapter.queryRefund(h.sim.config(), { orderNo: 'P1', refundNo: 'R1' })).toMatchObject({
      outcome: 'succeeded',
      occurredAt: expect.any(Date),
    });
    expect(await h.adapter.queryRefund(h.sim.config(), { orderNo: 'P1', refundNo: 'NOPE' })).toBeNull();
  });

  it.each([
    ['garbage', 'not JSON'],
    ['unsigned', 'not trusted'],
    ['bad-signature', 'not trusted'],
    ['server-error', 'answered 500'],
  ] as const)('a %s answer is a ChannelCallError', async (fault, message) => {
    h.sim.fail(fault);
    try {
      await expect(h.adapter.queryOrder(h.sim.config(), 'P1')).rejects.toThrow(ChannelCallError);
      await expect(h.adapter.queryOrder(h.sim.config(), 'P1')).rejects.toThrow(message);
    } finally {
      h.sim.fail(null);
    }
  });

  it('a request the channel refuses (wrong merchant key serial) is a ChannelCallError', async () => {
    await expect(h.adapter.queryOrder(h.sim.config({ merchantSerialNo: '00AA' }), 'P1')).rejects.toMatchObject({
      detail: { status: 401, code: 'SIGN_ERROR' },
    });
  });

  it('an unreachable channel is a ChannelCallError', async () => {
    const closed = await channelAHarness();
    await closed.sim.close();
    await expect(closed.adapter.queryOrder(closed.sim.config(), 'P1')).rejects.toMatchObject({
      name: 'ChannelCallError',
      detail: { code: 'egress.network_error' },
      neverSent: true,
    });
  });

  it('refuses a gateway outside the egress allow-list (no loopback by default)', async () => {
    await expect(h.adapter.queryOrder(h.sim.config({ baseUrl: 'http://127.0.0.1:9' }), 'P1')).rejects.toMatchObject({
      detail: { code: 'egress.blocked_address' },
      neverSent: true,
      message: expect.stringContaining('EGRESS_ALLOW_HOSTS=127.0.0.1:9'),
    });
  });
});
