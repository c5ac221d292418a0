import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChannelCAdapter } from '../../src/modules/payment/channels/channel-c/adapter.ts';
import { ChannelCallError, type OrderForChannel } from '../../src/modules/payment/channels/types.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelCSimulator, SIM_MER_ID, startChannelCSimulator } from './simulator/channel-c.ts';

/** channel_c's gateway calls against the simulator: create, query, refund, close, and the failures. */
let sim: ChannelCSimulator;
const egress = createEgress({ allow: parseAllowList('127.0.0.1') });
const adapter = createChannelCAdapter({ egress, clock: () => new Date() });

beforeAll(async () => {
  sim = await startChannelCSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.setAnswerMode('normal'));

const createdAt = new Date('2026-11-24T03:04:05.678Z');
const order = (orderNo: string, amount = 8_800): OrderForChannel => ({
  orderNo,
  amount,
  currency: 'CNY',
  subject: 'Atrium plan',
  expiresAt: new Date('2026-11-24T03:34:05Z'),
  notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_c',
  createdAt,
});

/** The payer's browser posting the form createPayment returned. */
async function submitForm(payload: Record<string, unknown>): Promise<number> {
  const res = await fetch(String(payload.action), {
    method: 'POST',
    body: new URLSearchParams(payload.fields as Record<string, string>),
  });
  await res.text();
  return res.status;
}

describe('channel_c createPayment (gateway form)', () => {
  it('answers signed form fields and the frontTransReq URL, which the gateway accepts', async () => {
    const start = await adapter.createPayment(sim.config(), order('P20261124100001'));
    expect(start.channelTradeNo).toBeNull();
    expect(start.payload).toMatchObject({ method: 'POST', action: `${sim.baseUrl}/gateway/api/frontTransReq.do` });
    const fields = start.payload.fields as Record<string, string>;
    expect(fields).toMatchObject({
      version: '5.1.0',
      signMethod: '01',
      txnType: '01',
      txnSubType: '01',
      bizType: '000201',
      channelType: '07',
      merId: SIM_MER_ID,
      orderId: 'P20261124100001',
      txnAmt: '8800',
      currencyCode: '156',
      // Beijing time of createdAt and expiresAt
      txnTime: '20261124110405',
      payTimeout: '20261124113405',
      certId: BigInt(`0x${sim.merchant.cert.serialNumber}`).toString(),
    });
    expect(await submitForm(start.payload)).toBe(200);
    // the simulator checked the merchant signature before recording the order
    expect(sim.orders.get('P20261124100001')).toMatchObject({ txnAmt: '8800', txnTime: '20261124110405' });
  });

  it('refuses another currency, and an order number UnionPay would refuse', async () => {
    await expect(adapter.createPayment(sim.config(), { ...order('P20261124100002'), currency: 'USD' })).rejects.toThrow(
      /CNY only/,
    );
    await expect(adapter.createPayment(sim.config(), order('P-2026-1124'))).rejects.toThrow(/8-32 letters and digits/);
  });
});

describe('channel_c queries and refunds', () => {
  it('queryOrder: in progress, then succeeded after payment; unknown order → null', async () => {
    await submitForm((await adapter.createPayment(sim.config(), order('P20261124100010', 500))).payload);
    expect(await adapter.queryOrder(sim.config(), 'P20261124100010', { createdAt })).toMatchObject({
      scene: 'payment',
      orderNo: 'P20261124100010',
      amount: 500,
      outcome: 'pending',
    });
    sim.pay('P20261124100010');
    const paid = await adapter.queryOrder(sim.config(), 'P20261124100010', { createdAt });
    expect(paid).toMatchObject({
      outcome: 'succeeded',
      amount: 500,
      currency: 'CNY',
      channelTradeNo: sim.orders.get('P20261124100010')?.queryId,
      merchantId: SIM_MER_ID,
    });
    expect(await adapter.queryOrder(sim.config(), 'P20261124109999', { createdAt })).toBeNull();
    // UnionPay keys a transaction on orderId + txnTime: another second is another (absent) transaction
    expect(
      await adapter.queryOrder(sim.config(), 'P20261124100010', { createdAt: new Date(createdAt.getTime() + 1000) }),
    ).toBeNull();
  });

  it('queryOrder without the creation time is a caller error, not a channel call', async () => {
    const before = sim.received.length;
    await expect(adapter.queryOrder(sim.config(), 'P20261124100010')).rejects.toThrow(/creation time/);
    expect(sim.received.length).toBe(before);
  });

  it('createRefund is accepted (pending), its notice and queryRefund then say succeeded; over-refund fails', async () => {
    await submitForm((await adapter.createPayment(sim.config(), order('P20261124100020', 1_000))).payload);
    sim.pay('P20261124100020');
    const queryId = sim.orders.get('P20261124100020')?.queryId ?? null;
    const refund = {
      orderNo: 'P20261124100020',
      refundNo: 'R20261124100020',
      channelTradeNo: queryId,
      amount: 600,
      orderAmount: 1_000,
      currency: 'CNY',
      reason: null,
      notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_c',
      createdAt,
    };
    const accepted = await adapter.createRefund(sim.config(), refund);
    expect(accepted).toMatchObject({
      scene: 'refund',
      orderNo: 'P20261124100020',
      refundNo: 'R20261124100020',
      amount: 600,
      outcome: 'pending',
    });
    expect(sim.received.at(-1)?.fields).toMatchObject({
      txnType: '04',
      origQryId: queryId,
      reqReserved: 'P20261124100020',
    });
    const key = { orderNo: refund.orderNo, refundNo: refund.refundNo, createdAt };
    expect(await adapter.queryRefund(sim.config(), key)).toMatchObject({ outcome: 'pending', amount: 600 });

    const notice = sim.settleRefund('R20261124100020');
    const verified = await adapter.verifyCallback(
      sim.config(),
      { rawBody: Buffer.from(sim.formBody(notice)), headers: {} },
      new Date(),
    );
    expect(verified).toMatchObject({
      valid: true,
      notice: { scene: 'refund', orderNo: 'P20261124100020', outcome: 'succeeded' },
    });
    expect(await adapter.queryRefund(sim.config(), key)).toMatchObject({
      scene: 'refund',
      orderNo: 'P20261124100020',
      refundNo: 'R20261124100020',
      outcome: 'succeeded',
    });

    // the same refund sent again: UnionPay says duplicate (12) — still pending, never "failed"
    expect(await adapter.createRefund(sim.config(), refund)).toMatchObject({ outcome: 'pending' });
    const tooMuch = await adapter.createRefund(sim.config(), { ...refund, refundNo: 'R20261124100021', amount: 500 });
    expect(tooMuch).toMatchObject({ outcome: 'failed', refundNo: 'R20261124100021' });
    expect(tooMuch.payload.respCode).toBe('01');
  });

  it('closeOrder makes no channel call (an unpaid gateway order lapses at payTimeout)', async () => {
    const before = sim.received.length;
    await adapter.closeOrder(sim.config(), 'P20261124100010');
    expect(sim.received.length).toBe(before);
  });
});

describe('channel_c: unusable answers are ChannelCallError', () => {
  const queryFails = async (config = sim.config()) => {
    const err = await adapter.queryOrder(config, 'P20261124100010', { createdAt }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelCallError);
    return err as ChannelCallError;
  };

  it('unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await queryFails(sim.config({ baseUrl: `http://127.0.0.1:${port}` }));
    expect(err.detail.code).toBe('egress.network_error');
    expect(err.neverSent).toBe(true);
  });

  it('a destination egress refuses', async () => {
    const strict = createChannelCAdapter({ egress: createEgress(), clock: () => new Date() });
    const err = await strict.queryOrder(sim.config(), 'P1', { createdAt }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChannelCallError);
    expect((err as ChannelCallError).detail.code).toBe('egress.blocked_address');
  });

  it('HTTP 500', async () => {
    sim.setAnswerMode('http-500');
    expect((await queryFails()).detail.status).toBe(500);
  });

  it('garbage', async () => {
    sim.setAnswerMode('garbage');
    expect((await queryFails()).message).toMatch(/not a UnionPay message/);
  });

  it('an answer whose signature does not match, or that is unsigned', async () => {
    sim.setAnswerMode('bad-signature');
    expect((await queryFails()).message).toBe(
      'channel_c: the answer is not trusted (signature: does not match the message)',
    );
    sim.setAnswerMode('unsigned');
    expect((await queryFails()).message).toMatch(/not trusted \(signature: the message has no signature\)/);
  });

  it('the gateway refusing our signature (signed with a key that is not the certificate’s)', async () => {
    const err = await queryFails(sim.config({ signKeyPem: sim.signer.keyPem }));
    expect(err.message).toMatch(/not a UnionPay message|not trusted/);
  });
});

describe('channel_c: a notice delivered over HTTP', () => {
  it('is verified and acknowledged with exactly the success answer; a refused one is a 500', async () => {
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const result = await adapter.verifyCallback(
          sim.config(),
          { rawBody: Buffer.concat(chunks), headers: {} },
          new Date(),
        );
        const ack = result.valid ? adapter.ack.success : adapter.ack.failure(result.reason);
        res.writeHead(ack.status, ack.contentType ? { 'content-type': ack.contentType } : {}).end(ack.body);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
    try {
      sim.open('P20261124100030', 300);
      const fields = sim.pay('P20261124100030');
      expect(await sim.deliver(url, fields)).toEqual({ status: 200, body: 'ok' });
      expect(await sim.deliver(url, { ...fields, txnAmt: '1' })).toEqual({ status: 500, body: 'fail' });
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});
