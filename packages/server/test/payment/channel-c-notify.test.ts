import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelCAdapter } from '../../src/modules/payment/channels/channel-c/adapter.ts';
import { createSignerCertCache } from '../../src/modules/payment/channels/channel-c/certificates.ts';
import type { InboundCallback } from '../../src/modules/payment/channels/types.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelCSimulator, SIM_MER_ID, startChannelCSimulator } from './simulator/channel-c.ts';

/**
 * channel_c callbacks: what UnionPay's back-end notice proves, and every way it can fail to.
 * The certificate cases are the issue's: expired, wrong CN, another CA.
 */
let sim: ChannelCSimulator;
const DAY = 86_400_000;
const now = () => new Date();
const egress = createEgress({ allow: parseAllowList('127.0.0.1') });
const adapter = () => createChannelCAdapter({ egress, clock: now });
const callback = (body: string): InboundCallback => ({
  rawBody: Buffer.from(body, 'utf8'),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

beforeAll(async () => {
  sim = await startChannelCSimulator();
});
afterAll(() => sim.close());

describe('channel_c callback: valid messages', () => {
  it('a payment notice is parsed to a succeeded payment in fen', async () => {
    const order = sim.open('P20261124000001', 12_345);
    const body = sim.formBody(sim.pay(order.orderId));
    const result = await adapter().verifyCallback(sim.config(), callback(body), now());
    expect(result).toMatchObject({
      valid: true,
      notice: {
        scene: 'payment',
        orderNo: 'P20261124000001',
        refundNo: null,
        channelTradeNo: order.queryId,
        amount: 12_345,
        currency: 'CNY',
        outcome: 'succeeded',
        merchantId: SIM_MER_ID,
      },
    });
    if (!result.valid) return;
    // txnTime is Beijing time; the notice carries the instant
    expect(Math.abs((result.notice.occurredAt?.getTime() ?? 0) - Date.now())).toBeLessThan(5_000);
    expect(result.notice.payload).not.toHaveProperty('signature');
    expect(result.notice.payload).not.toHaveProperty('signPubKeyCert');
    expect(result.notice.payload.respCode).toBe('00');
  });

  it('a refund notice names the refund (its orderId), the payment (origQryId) and our order (reqReserved)', async () => {
    const order = sim.open('P20261124000002', 5_000);
    sim.pay(order.orderId);
    sim.refunds.set('R20261124000002', {
      orderId: 'R20261124000002',
      txnTime: '20261124180000',
      txnAmt: '1200',
      backUrl: '',
      queryId: '202611241800000000000099',
      respCode: '05',
      origQryId: order.queryId,
      reqReserved: order.orderId,
    });
    const body = sim.formBody(sim.settleRefund('R20261124000002'));
    const result = await adapter().verifyCallback(sim.config(), callback(body), now());
    expect(result).toMatchObject({
      valid: true,
      notice: {
        scene: 'refund',
        orderNo: 'P20261124000002',
        refundNo: 'R20261124000002',
        channelTradeNo: '202611241800000000000099',
        amount: 1_200,
        outcome: 'succeeded',
        occurredAt: new Date('2026-11-24T10:00:00Z'),
      },
    });
    if (result.valid) expect(result.notice.payload.origQryId).toBe(order.queryId);
  });

  it('the test environment CN (00040000:SIGN) verifies when configured', async () => {
    const test = await startChannelCSimulator({ signerCn: '00040000:SIGN' });
    try {
      const o = test.open('P20261124000003', 100);
      const body = test.formBody(test.pay(o.orderId));
      expect((await adapter().verifyCallback(test.config(), callback(body), now())).valid).toBe(true);
      // …and not with the production value
      expect(
        await adapter().verifyCallback(test.config({ signerCn: '中国银联股份有限公司' }), callback(body), now()),
      ).toEqual({
        valid: false,
        reason: expect.stringMatching(/^certificate subject: CN identity is "00040000:SIGN"/),
      });
    } finally {
      await test.close();
    }
  });
});

describe('channel_c callback: refused, with the reason', () => {
  const paidBody = (orderId: string, amount = 100) => {
    sim.open(orderId, amount);
    return sim.pay(orderId);
  };
  const refused = async (body: string, config = sim.config(), at = now()) => {
    const result = await adapter().verifyCallback(config, callback(body), at);
    expect(result.valid).toBe(false);
    return result.valid ? '' : result.reason;
  };

  it('a tampered field (the amount)', async () => {
    const fields = paidBody('P20261124000010', 100);
    expect(await refused(sim.formBody({ ...fields, txnAmt: '100000' }))).toBe('signature: does not match the message');
  });

  it('an added field', async () => {
    const fields = paidBody('P20261124000011');
    expect(await refused(sim.formBody({ ...fields, reserved: 'x' }))).toBe('signature: does not match the message');
  });

  it('a tampered signature', async () => {
    const fields = paidBody('P20261124000012');
    const sig = Buffer.from(fields.signature ?? '', 'base64');
    sig[10] = (sig[10] ?? 0) ^ 1;
    expect(await refused(sim.formBody({ ...fields, signature: sig.toString('base64') }))).toBe(
      'signature: does not match the message',
    );
  });

  it('no signature, no certificate, another signMethod or version', async () => {
    const { signature: _s, ...unsigned } = paidBody('P20261124000013');
    expect(await refused(sim.formBody(unsigned))).toBe('signature: the message has no signature');
    const { signPubKeyCert: _c, ...noCert } = paidBody('P20261124000014');
    expect(await refused(sim.formBody(noCert))).toBe('certificate: the message has no signPubKeyCert');
    expect(await refused(sim.formBody({ ...paidBody('P20261124000015'), signMethod: '11' }))).toBe(
      'signMethod 11 is not 01',
    );
    expect(await refused(sim.formBody({ ...paidBody('P20261124000016'), version: '5.0.0' }))).toBe(
      'version 5.0.0 is not 5.1.0',
    );
  });

  it('a repeated field', async () => {
    const body = `${sim.formBody(paidBody('P20261124000017'))}&txnAmt=1`;
    expect(await refused(body)).toBe('body: a field is repeated');
  });

  it("a notice for another merchant id (UnionPay's signature verifies for every configuration)", async () => {
    const body = sim.formBody(paidBody('P20261124000018'));
    expect(await refused(body, sim.config({ merId: '777290058110099' }))).toBe(
      `merId ${SIM_MER_ID} is not this configuration's`,
    );
  });

  it('an expired signing certificate, and one not yet valid', async () => {
    const expired = await sim.issueFrom(sim.middle, {
      subject: 'CN=041@Z12400000001@中国银联股份有限公司@00000009,C=CN',
      notBefore: new Date(Date.now() - 30 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    sim.open('P20261124000020', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000020', expired)))).toMatch(
      /^certificate expired or not yet valid: signPubKeyCert is valid /,
    );
    const future = await sim.issueFrom(sim.middle, {
      subject: 'CN=041@Z12400000001@中国银联股份有限公司@00000010,C=CN',
      notBefore: new Date(Date.now() + DAY),
      notAfter: new Date(Date.now() + 30 * DAY),
    });
    sim.open('P20261124000021', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000021', future)))).toMatch(
      /^certificate expired or not yet valid/,
    );
  });

  it('a certificate that passed once is refused again once it has expired (the cache keeps no verdict on time)', async () => {
    const cache = createSignerCertCache(4);
    const a = createChannelCAdapter({ egress, clock: now, cache });
    const body = sim.formBody(paidBody('P20261124000022'));
    expect((await a.verifyCallback(sim.config(), callback(body), now())).valid).toBe(true);
    expect(cache.trusted.size).toBe(1);
    expect((await a.verifyCallback(sim.config(), callback(body), now())).valid).toBe(true);
    expect(cache.trusted.size).toBe(1);
    const later = new Date(sim.signer.cert.validToDate.getTime() + 1000);
    expect(await a.verifyCallback(sim.config(), callback(body), later)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^certificate expired or not yet valid: signPubKeyCert/),
    });
  });

  it('a wrong CN: a certificate of the same CA that is not UnionPay’s', async () => {
    const merchantLike = await sim.issueFrom(sim.middle, {
      subject: 'CN=041@Z777290058110048@SomeMerchant@00000002,C=CN',
    });
    sim.open('P20261124000030', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000030', merchantLike)))).toBe(
      'certificate subject: CN identity is "SomeMerchant", expected "中国银联股份有限公司"',
    );
    const noAt = await sim.issueFrom(sim.middle, { subject: 'CN=中国银联股份有限公司,C=CN' });
    sim.open('P20261124000031', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000031', noAt)))).toBe(
      'certificate subject: CN identity is null, expected "中国银联股份有限公司"',
    );
    // two CNs in one RDN would print as `CN=x@y + CN=z@中国银联股份有限公司@1`: the split must not reach the second
    const twoCns = await sim.issueFrom(sim.middle, { subject: 'CN=x@y+CN=z@中国银联股份有限公司@1,C=CN' });
    sim.open('P20261124000032', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000032', twoCns)))).toBe(
      'certificate subject: CN identity is null, expected "中国银联股份有限公司"',
    );
  });

  it('a leaf from a foreign CA, even with the same names and the right CN', async () => {
    const foreignRoot = await sim.createRootCa({ subject: sim.root.subject });
    const foreignMiddle = await sim.issueFrom(foreignRoot, { subject: sim.middle.subject, ca: true });
    const foreignLeaf = await sim.issueFrom(foreignMiddle, { subject: sim.signer.subject });
    sim.open('P20261124000040', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000040', foreignLeaf)))).toBe(
      'certificate chain: signPubKeyCert is not issued by the configured intermediate certificate',
    );
    // the root itself (self-signed, right key) is not a signing certificate either
    sim.open('P20261124000041', 100);
    expect(await refused(sim.formBody(sim.pay('P20261124000041', sim.root)))).toMatch(/^certificate chain:/);
  });

  it('a configuration whose intermediate is not issued by its root', async () => {
    const other = await sim.createRootCa({ subject: 'CN=Other Root,C=CN' });
    const body = sim.formBody(paidBody('P20261124000050'));
    expect(await refused(body, sim.config({ rootCertPem: other.certPem }))).toBe(
      'configuration: the intermediate certificate is not issued by the root',
    );
  });

  it('garbage in signPubKeyCert', async () => {
    const fields = paidBody('P20261124000051');
    expect(
      await refused(
        sim.formBody({ ...fields, signPubKeyCert: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      ),
    ).toBe('certificate: signPubKeyCert is not a readable certificate');
  });
});

describe('channel_c acknowledgement', () => {
  it('success is HTTP 200 (UnionPay reads only the status); failure a 500 so it resends', () => {
    const a = adapter();
    expect(a.ack.success).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'ok' });
    expect(a.ack.failure('database down')).toEqual({
      status: 500,
      contentType: 'text/plain; charset=utf-8',
      body: 'fail',
    });
  });
});
