import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelBAdapter } from '../../src/modules/payment/channels/channel-b/adapter.ts';
import type { ChannelBConfig } from '../../src/modules/payment/channels/channel-b/config.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelBSimulator, startChannelBSimulator } from './simulator/channel-b.ts';

/** channel_b notifies: each scene parsed to the right notice, every tampering refused with a reason. */
const adapter = createChannelBAdapter({ egress: createEgress(), clock: () => new Date() });
const now = new Date();
const verify = (config: ChannelBConfig, body: string | Buffer) =>
  adapter.verifyCallback(config, { rawBody: Buffer.from(body), headers: {} }, now);

let sim: ChannelBSimulator;
beforeAll(async () => {
  sim = await startChannelBSimulator();
});
afterAll(() => sim.close());

const trade = (orderNo: string, totalAmount: string) => sim.seed(orderNo, totalAmount);

describe('payment scene', () => {
  it('TRADE_SUCCESS → succeeded, amount in fen exactly, the trade and app ids, gmt_payment in Beijing time', async () => {
    trade('ORD-000001', '88.88');
    const body = sim.pay('ORD-000001', new Date('2026-11-24T02:03:04Z'));
    const r = await verify(sim.config(), body);
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.notice).toMatchObject({
      scene: 'payment',
      orderNo: 'ORD-000001',
      refundNo: null,
      channelTradeNo: sim.trades.get('ORD-000001')?.tradeNo,
      amount: 8888,
      currency: 'CNY',
      outcome: 'succeeded',
      merchantId: sim.appId,
    });
    expect(r.notice.occurredAt?.toISOString()).toBe('2026-11-24T02:03:04.000Z');
    expect(r.notice.payload.sign).toBeUndefined();
  });

  it.each([
    ['TRADE_FINISHED', 'succeeded'],
    ['TRADE_CLOSED', 'closed'],
    ['WAIT_BUYER_PAY', 'pending'],
  ])('%s → %s', async (status, outcome) => {
    trade('ORD-000002', '0.10');
    const r = await verify(sim.config(), sim.signNotify(sim.notifyFields('ORD-000002', { trade_status: status })));
    expect(r.valid && r.notice.outcome).toBe(outcome);
    expect(r.valid && r.notice.amount).toBe(10);
  });

  it.each([
    ['0.01', 1],
    ['0.1', 10],
    ['1', 100],
    ['19.99', 1999],
    ['1000000.07', 100000007],
  ])('total_amount %s yuan is %d fen', async (yuan, fen) => {
    trade('ORD-000003', yuan);
    const r = await verify(
      sim.config(),
      sim.signNotify(sim.notifyFields('ORD-000003', { trade_status: 'TRADE_SUCCESS' })),
    );
    expect(r.valid && r.notice.amount).toBe(fen);
  });

  it('a total_amount that is not yuan (three decimals) is refused, even when signed', async () => {
    trade('ORD-000004', '1.001');
    const r = await verify(
      sim.config(),
      sim.signNotify(sim.notifyFields('ORD-000004', { trade_status: 'TRADE_SUCCESS' })),
    );
    expect(r).toEqual({ valid: false, reason: 'fields: amount 1.001 is not yuan' });
  });
});

describe('refund scene', () => {
  it('a notify with refund_fee / gmt_refund / out_biz_no is the refund out_biz_no, amount = refund_fee', async () => {
    trade('ORD-000010', '50.00');
    sim.pay('ORD-000010');
    const t = sim.trades.get('ORD-000010');
    t?.refunds.set('RF-1', { amount: '20.00', at: '2026-11-24 10:00:00' });
    const r = await verify(sim.config(), sim.refundNotify('ORD-000010', 'RF-1'));
    expect(r.valid).toBe(true);
    if (!r.valid) return;
    expect(r.notice).toMatchObject({
      scene: 'refund',
      orderNo: 'ORD-000010',
      refundNo: 'RF-1',
      amount: 2000,
      outcome: 'succeeded',
    });
    expect(r.notice.occurredAt?.toISOString()).toBe('2026-11-24T02:00:00.000Z');
    expect(r.notice.payload.trade_status).toBe('TRADE_SUCCESS');
  });

  it('a full refund (trade now TRADE_CLOSED) is still the refund scene, not a closed payment', async () => {
    trade('ORD-000011', '5.00');
    sim.pay('ORD-000011');
    const t = sim.trades.get('ORD-000011');
    if (t) {
      t.refunds.set('RF-2', { amount: '5.00', at: '2026-11-24 10:00:00' });
      t.status = 'TRADE_CLOSED';
    }
    const r = await verify(sim.config(), sim.refundNotify('ORD-000011', 'RF-2'));
    expect(r.valid && [r.notice.scene, r.notice.outcome, r.notice.amount, r.notice.refundNo]).toEqual([
      'refund',
      'succeeded',
      500,
      'RF-2',
    ]);
  });
});

describe('refused notifies', () => {
  let body: string;
  beforeAll(() => {
    trade('ORD-000020', '10.00');
    body = sim.pay('ORD-000020');
  });
  const edit = (fn: (p: URLSearchParams) => void) => {
    const p = new URLSearchParams(body);
    fn(p);
    return p.toString();
  };

  it('a changed amount', async () => {
    const r = await verify(
      sim.config(),
      edit((p) => p.set('total_amount', '0.01')),
    );
    expect(r).toEqual({ valid: false, reason: 'signature: does not verify with the wallet key' });
  });
  it('an added field', async () => {
    const r = await verify(
      sim.config(),
      edit((p) => p.set('refund_fee', '10.00')),
    );
    expect(r.valid).toBe(false);
  });
  it('a changed signature', async () => {
    const r = await verify(
      sim.config(),
      // another first character (the signature may start with 'A' itself: then it would not change)
      edit((p) => {
        const sign = p.get('sign') ?? '';
        p.set('sign', `${sign.startsWith('A') ? 'B' : 'A'}${sign.slice(1)}`);
      }),
    );
    expect(r).toEqual({ valid: false, reason: 'signature: does not verify with the wallet key' });
  });
  it('no signature', async () => {
    expect(
      await verify(
        sim.config(),
        edit((p) => p.delete('sign')),
      ),
    ).toEqual({ valid: false, reason: 'signature: no sign field' });
  });
  it('sign_type downgraded to RSA (SHA-1) for an RSA2 configuration', async () => {
    const r = await verify(
      sim.config(),
      edit((p) => p.set('sign_type', 'RSA')),
    );
    expect(r).toEqual({ valid: false, reason: 'signature: sign_type RSA, configured RSA2' });
  });
  it('signed by another wallet key (a certificate/key not the configured one)', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    const config = { ...sim.config(), walletPublicKey: other as string } as ChannelBConfig;
    expect(await verify(config, body)).toEqual({
      valid: false,
      reason: 'signature: does not verify with the wallet key',
    });
  });
  it('a valid notify for another app id', async () => {
    const config = { ...sim.config(), appId: '2021000000009999' };
    const r = await verify(config, body);
    expect(r).toEqual({ valid: false, reason: `app_id ${sim.appId} is not this configuration's` });
  });
  it('a body that is not form-encoded', async () => {
    expect(await verify(sim.config(), 'out_trade_no=%zz&sign=x')).toEqual({
      valid: false,
      reason: 'body: malformed percent-encoding',
    });
  });
  it('unusable configured keys are a reason, not a throw', async () => {
    const r = await verify({ ...sim.config(), appPrivateKey: 'not a key' }, body);
    expect(r.valid === false && r.reason.startsWith('configuration: keys unusable')).toBe(true);
  });
});

describe('charsets and key forms', () => {
  it('a GBK notify (charset=gbk in the body) is decoded as GBK before the signature check', async () => {
    trade('ORD-000030', '1.00');
    sim.pay('ORD-000030');
    const fields = sim.notifyFields('ORD-000030', { charset: 'gbk', subject: '测试' });
    const signed = new URLSearchParams(sim.signNotify(fields));
    // re-encode the subject as Alipay does for a GBK app: 测 = B2 E2, 试 = CA D4
    expect(new TextDecoder('gbk').decode(Buffer.from([0xb2, 0xe2, 0xca, 0xd4]))).toBe('测试');
    const gbkBody = signed.toString().replace(/subject=[^&]*/, 'subject=%B2%E2%CA%D4');
    const r = await verify(sim.config(), gbkBody);
    expect(r.valid && r.notice.payload.subject).toBe('测试');
    // the same bytes read as UTF-8 would not be the signed text
    const utf8Body = gbkBody.replace('charset=gbk', 'charset=utf-8');
    expect((await verify(sim.config(), utf8Body)).valid).toBe(false);
  });

  it('legacy RSA (SHA1withRSA), a PKCS#1 app key, and bare base64 keys as the key tool prints them', async () => {
    const legacy = await startChannelBSimulator({ signType: 'RSA', appKeyFormat: 'pkcs1' });
    try {
      legacy.seed('ORD-000040', '1.00');
      const body = legacy.pay('ORD-000040');
      expect((await verify(legacy.config(), body)).valid).toBe(true);
      const bare = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
      const config = {
        ...legacy.config(),
        walletPublicKey: bare(legacy.walletPublicKeyPem),
        appPrivateKey: bare(legacy.appPrivateKeyPem),
      } as ChannelBConfig;
      expect((await verify(config, body)).valid).toBe(true);
      expect((await verify(sim.config(), body)).valid).toBe(false);
    } finally {
      await legacy.close();
    }
  });

  it('certificate mode: the key of the wallet public-key certificate verifies', async () => {
    const certSim = await startChannelBSimulator({ mode: 'cert' });
    try {
      certSim.seed('ORD-000050', '1.00');
      const r = await verify(certSim.config(), certSim.pay('ORD-000050'));
      expect(r.valid).toBe(true);
      expect((await verify(sim.config(), certSim.pay('ORD-000050'))).valid).toBe(false);
    } finally {
      await certSim.close();
    }
  });
});

describe('over the wire', () => {
  it('a notify fired by the simulator at a receiver is verified from its raw body and acknowledged', async () => {
    const seen: string[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        seen.push(req.headers['content-type'] ?? '');
        const r = await adapter.verifyCallback(sim.config(), { rawBody: Buffer.concat(chunks), headers: {} }, now);
        const ack = r.valid ? adapter.ack.success : adapter.ack.failure(r.reason);
        res.writeHead(ack.status, { 'content-type': ack.contentType ?? 'text/plain' }).end(ack.body);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notify`;
      trade('ORD-000060', '3.00');
      const body = sim.pay('ORD-000060');
      expect(await sim.fireNotify(url, body)).toEqual({ status: 200, body: 'success' });
      expect(await sim.fireNotify(url, body.replace('total_amount=3.00', 'total_amount=0.30'))).toEqual({
        status: 200,
        body: 'fail',
      });
      expect(seen[0]).toMatch(/^application\/x-www-form-urlencoded/);
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

describe('acknowledgement', () => {
  it('success is exactly the bytes "success", HTTP 200; failure is "fail"', () => {
    expect(adapter.ack.success).toEqual({ status: 200, contentType: 'text/plain; charset=utf-8', body: 'success' });
    expect(Buffer.from(adapter.ack.success.body)).toEqual(Buffer.from([0x73, 0x75, 0x63, 0x63, 0x65, 0x73, 0x73]));
    expect(adapter.ack.failure('db down').body).toBe('fail');
  });
});
