import { createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelAHarness, order } from './channel-a-harness.ts';

/** channel_a callbacks: each scene parsed, every tampering refused with its reason, the exact acknowledgements. */
describe('channel_a callback verification', () => {
  let h: Awaited<ReturnType<typeof channelAHarness>>;
  let paidNo: string;
  let refundNo: string;

  beforeAll(async () => {
    h = await channelAHarness();
    paidNo = 'A20261124000001';
    await h.adapter.createPayment(h.sim.config(), order(paidNo, 1999));
    h.sim.pay(paidNo, 1899);
    refundNo = 'R20261124000001';
    await h.adapter.createRefund(h.sim.config(), {
      orderNo: paidNo,
      refundNo,
      channelTradeNo: null,
      amount: 500,
      orderAmount: 1999,
      currency: 'CNY',
      reason: 'damaged',
      notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_a',
    });
  });
  afterAll(() => h.sim.close());

  it('parses a TRANSACTION.SUCCESS callback into a payment notice in fen', async () => {
    const result = await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback(paidNo), h.clock());
    expect(result.valid).toBe(true);
    if (!result.valid) return;
    expect(result.notice).toMatchObject({
      scene: 'payment',
      orderNo: paidNo,
      refundNo: null,
      amount: 1999,
      currency: 'CNY',
      outcome: 'succeeded',
      merchantId: h.sim.mchId,
    });
    expect(result.notice.channelTradeNo).toMatch(/^42000\d+$/);
    expect(result.notice.occurredAt).toBeInstanceOf(Date);
    expect(result.notice.payload).toMatchObject({
      event_type: 'TRANSACTION.SUCCESS',
      resource: { amount: { payer_total: 1899 } },
    });
  });

  it.each([
    ['SUCCESS', 'succeeded'],
    ['CLOSED', 'closed'],
    ['ABNORMAL', 'failed'],
  ] as const)('parses a REFUND.%s callback into a refund notice (%s)', async (status, outcome) => {
    h.sim.settleRefund(refundNo, status);
    const result = await h.adapter.verifyCallback(h.sim.config(), h.sim.refundCallback(refundNo), h.clock());
    expect(result).toMatchObject({
      valid: true,
      notice: { scene: 'refund', orderNo: paidNo, refundNo, amount: 500, outcome, merchantId: h.sim.mchId },
    });
  });

  it('verifies callbacks signed by certificate and by platform public key with one configuration (migration)', async () => {
    const both = h.sim.config({ publicKeyMode: true });
    const byCertificate = h.sim.paymentCallback(paidNo);
    h.sim.signWith('publicKey');
    const byPublicKey = h.sim.paymentCallback(paidNo);
    h.sim.signWith('certificate');
    expect(byPublicKey.headers['wechatpay-serial']).toMatch(/^PUB_KEY_ID_/);
    expect((await h.adapter.verifyCallback(both, byCertificate, h.clock())).valid).toBe(true);
    expect((await h.adapter.verifyCallback(both, byPublicKey, h.clock())).valid).toBe(true);
    // without the public key configured, a PUB_KEY_ID serial cannot verify
    expect(await h.adapter.verifyCallback(h.sim.config(), byPublicKey, h.clock())).toEqual({
      valid: false,
      reason: expect.stringContaining('public-key mode not configured'),
    });
  });

  it('refuses a body changed by one byte', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const rawBody = Buffer.from(cb.rawBody.toString().replace('"TRANSACTION.SUCCESS"', '"TRANSACTION.SUCCESs"'));
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...cb, rawBody }, h.clock())).toEqual({
      valid: false,
      reason: 'signature does not verify',
    });
  });

  it('refuses a changed signature', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const sig = Buffer.from(cb.headers['wechatpay-signature'], 'base64');
    sig[10] = (sig[10] ?? 0) ^ 1;
    const headers = { ...cb.headers, 'wechatpay-signature': sig.toString('base64') };
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...cb, headers }, h.clock())).toEqual({
      valid: false,
      reason: 'signature does not verify',
    });
  });

  it('refuses a signature header that is not a bare base64 signature (a prefixed probe)', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const headers = { ...cb.headers, 'wechatpay-signature': `WECHATPAY/SIGNTEST/${cb.headers['wechatpay-signature']}` };
    expect((await h.adapter.verifyCallback(h.sim.config(), { ...cb, headers }, h.clock())).valid).toBe(false);
  });

  it('refuses an unknown serial and a serial that names a different certificate', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const unknown = { ...cb.headers, 'wechatpay-serial': '7E5E1A2B3C4D5E6F708192A3B4C5D6E7F8091A2B' };
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...cb, headers: unknown }, h.clock())).toEqual({
      valid: false,
      reason: expect.stringContaining('unknown platform certificate serial'),
    });
    // signed by the platform public key but naming the certificate's serial
    h.sim.signWith('publicKey');
    const byOtherKey = h.sim.paymentCallback(paidNo);
    h.sim.signWith('certificate');
    const wrongSerial = { ...byOtherKey.headers, 'wechatpay-serial': h.sim.signerSerial };
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...byOtherKey, headers: wrongSerial }, h.clock())).toEqual({
      valid: false,
      reason: 'signature does not verify',
    });
  });

  it('refuses a callback signed by a key that is not the channel’s (a forged certificate serial)', async () => {
    const forger = h.sim.certificates[0];
    if (!forger) throw new Error('no certificate');
    const cb = h.sim.paymentCallback(paidNo);
    const body = cb.rawBody.toString();
    const { generateKeyPairSync } = await import('node:crypto');
    const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ts = cb.headers['wechatpay-timestamp'];
    const nonce = cb.headers['wechatpay-nonce'];
    const signature = createSign('RSA-SHA256').update(`${ts}\n${nonce}\n${body}\n`).sign(attacker.privateKey, 'base64');
    const headers = { ...cb.headers, 'wechatpay-signature': signature };
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...cb, headers }, h.clock())).toEqual({
      valid: false,
      reason: 'signature does not verify',
    });
  });

  it('refuses timestamps outside the 5-minute replay window, both ways', async () => {
    const now = h.clock();
    const old = h.sim.paymentCallback(paidNo, { at: new Date(now.getTime() - 301_000) });
    const future = h.sim.paymentCallback(paidNo, { at: new Date(now.getTime() + 301_000) });
    const edge = h.sim.paymentCallback(paidNo, { at: new Date(now.getTime() - 299_000) });
    expect(await h.adapter.verifyCallback(h.sim.config(), old, now)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^stale timestamp/),
    });
    expect(await h.adapter.verifyCallback(h.sim.config(), future, now)).toEqual({
      valid: false,
      reason: expect.stringMatching(/^stale timestamp/),
    });
    expect((await h.adapter.verifyCallback(h.sim.config(), edge, now)).valid).toBe(true);
  });

  it('refuses a correctly signed callback whose resource fails the GCM tag, or is sealed with another APIv3 key', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const envelope = JSON.parse(cb.rawBody.toString()) as { resource: { ciphertext: string } };
    const bytes = Buffer.from(envelope.resource.ciphertext, 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    envelope.resource.ciphertext = bytes.toString('base64');
    const resigned = h.sim.callback('TRANSACTION.SUCCESS', 'transaction', {});
    const body = JSON.stringify({ ...JSON.parse(resigned.rawBody.toString()), resource: envelope.resource });
    const forged = signedAsChannel(h, body);
    expect(await h.adapter.verifyCallback(h.sim.config(), forged, h.clock())).toEqual({
      valid: false,
      reason: expect.stringMatching(/^resource does not decrypt/),
    });
    const otherKey = h.sim.config({ apiV3Key: 'x'.repeat(32) });
    expect(await h.adapter.verifyCallback(otherKey, h.sim.paymentCallback(paidNo), h.clock())).toEqual({
      valid: false,
      reason: expect.stringMatching(/^resource does not decrypt/),
    });
  });

  it('refuses a verified callback for another merchant', async () => {
    const cb = h.sim.paymentCallback(paidNo, { resource: { mchid: '1230000109' } });
    expect(await h.adapter.verifyCallback(h.sim.config(), cb, h.clock())).toEqual({
      valid: false,
      reason: expect.stringContaining('mchid 1230000109'),
    });
  });

  it('refuses missing headers and a body that is not JSON', async () => {
    const cb = h.sim.paymentCallback(paidNo);
    const { 'wechatpay-nonce': _n, ...noNonce } = cb.headers;
    expect(await h.adapter.verifyCallback(h.sim.config(), { ...cb, headers: noNonce }, h.clock())).toEqual({
      valid: false,
      reason: 'signature headers missing',
    });
    const garbage = signedAsChannel(h, 'not json');
    expect((await h.adapter.verifyCallback(h.sim.config(), garbage, h.clock())).valid).toBe(false);
  });

  it('answers the exact acknowledgements', () => {
    expect(h.adapter.ack.success).toEqual({ status: 204, contentType: null, body: '' });
    expect(h.adapter.ack.failure('失败')).toEqual({
      status: 500,
      contentType: 'application/json; charset=utf-8',
      body: '{"code":"FAIL","message":"失败"}',
    });
    // the channel takes 1 to 64 characters
    expect(JSON.parse(h.adapter.ack.failure('x'.repeat(100)).body).message).toHaveLength(64);
    expect(JSON.parse(h.adapter.ack.failure('').body).message).toBe('失败');
  });
});

/** A body signed with the simulator's current platform certificate, as the channel would sign it. */
function signedAsChannel(h: Awaited<ReturnType<typeof channelAHarness>>, body: string) {
  const cert = h.sim.certificates.find((c) => c.serial === h.sim.signerSerial);
  if (!cert) throw new Error('no signer');
  const ts = String(Math.floor(h.clock().getTime() / 1000));
  const nonce = 'n0nce';
  const signature = createSign('RSA-SHA256').update(`${ts}\n${nonce}\n${body}\n`).sign(cert.privateKey, 'base64');
  return {
    rawBody: Buffer.from(body),
    headers: {
      'wechatpay-serial': cert.serial,
      'wechatpay-signature': signature,
      'wechatpay-timestamp': ts,
      'wechatpay-nonce': nonce,
    },
  };
}
