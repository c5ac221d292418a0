import { afterEach, describe, expect, it } from 'vitest';
import { channelAHarness, order } from './channel-a-harness.ts';

/**
 * Platform certificates: downloaded on first need, cached 12 hours, downloaded again for an
 * unknown serial (rotation) at most once a minute per merchant, and the download itself verified.
 */
describe('channel_a platform certificates', () => {
  let h: Awaited<ReturnType<typeof channelAHarness>>;
  afterEach(() => h.sim.close());

  async function paidOrder(no: string) {
    await h.adapter.createPayment(h.sim.config(), order(no));
    h.sim.pay(no);
  }

  it('downloads once and serves later callbacks from the cache', async () => {
    h = await channelAHarness();
    await paidOrder('C1');
    for (let i = 0; i < 5; i++) {
      expect((await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C1'), h.clock())).valid).toBe(true);
    }
    expect(h.downloads()).toBe(1);
  });

  it('a burst of callbacks on an empty cache shares one download and all verify', async () => {
    h = await channelAHarness();
    const cb = h.sim.callback('TRANSACTION.SUCCESS', 'transaction', {
      mchid: h.sim.mchId,
      out_trade_no: 'C0',
      transaction_id: '4200000000000000000000000000',
      trade_state: 'SUCCESS',
      amount: { total: 1, currency: 'CNY' },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.adapter.verifyCallback(h.sim.config(), cb, h.clock())),
    );
    expect(results.every((r) => r.valid)).toBe(true);
    expect(h.downloads()).toBe(1);
  });

  it('verifies a callback signed with a rotated certificate after one automatic refresh', async () => {
    h = await channelAHarness();
    await paidOrder('C2');
    expect((await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C2'), h.clock())).valid).toBe(true);
    const before = h.downloads();
    const oldSerial = h.sim.signerSerial;
    h.advance(61_000); // the first download (createPayment) claimed this minute's refresh
    const newSerial = await h.sim.rotate();
    expect(newSerial).not.toBe(oldSerial);
    const result = await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C2'), h.clock());
    expect(result).toMatchObject({ valid: true, notice: { orderNo: 'C2' } });
    expect(h.downloads()).toBe(before + 1);
  });

  it('refuses a callback signed with a platform certificate past its notAfter', async () => {
    h = await channelAHarness();
    await paidOrder('C7');
    h.advance(61_000);
    const now = h.clock().getTime();
    await h.sim.rotate({ notBefore: new Date(now - 400 * 86_400_000), notAfter: new Date(now - 1000) });
    expect(await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C7'), h.clock())).toEqual({
      valid: false,
      reason: expect.stringContaining('platform certificate expired'),
    });
  });

  it('refreshes at most once a minute per merchant under a flood of bogus serials', async () => {
    h = await channelAHarness();
    await paidOrder('C3');
    h.advance(61_000);
    const cb = h.sim.paymentCallback('C3');
    const start = h.downloads();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.adapter.verifyCallback(
          h.sim.config(),
          { ...cb, headers: { ...cb.headers, 'wechatpay-serial': `1${String(i).padStart(39, '0')}` } },
          h.clock(),
        ),
      ),
    );
    expect(results.every((r) => !r.valid)).toBe(true);
    expect(h.downloads()).toBe(start + 1);
    h.advance(30_000);
    await h.adapter.verifyCallback(
      h.sim.config(),
      { ...cb, headers: { ...cb.headers, 'wechatpay-serial': 'ABCDEF' } },
      h.clock(),
    );
    expect(h.downloads()).toBe(start + 1);
    h.advance(31_000);
    await h.adapter.verifyCallback(
      h.sim.config(),
      { ...cb, headers: { ...cb.headers, 'wechatpay-serial': 'ABCDEF' } },
      h.clock(),
    );
    expect(h.downloads()).toBe(start + 2);
  });

  it('downloads again once the 12-hour cache has expired', async () => {
    h = await channelAHarness();
    await paidOrder('C4');
    const start = h.downloads();
    h.advance(12 * 3600_000 - 1000);
    expect((await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C4'), h.clock())).valid).toBe(true);
    expect(h.downloads()).toBe(start);
    h.advance(2000);
    expect((await h.adapter.verifyCallback(h.sim.config(), h.sim.paymentCallback('C4'), h.clock())).valid).toBe(true);
    expect(h.downloads()).toBe(start + 1);
  });

  it('trusts no certificate from a download with a bad signature, and says so', async () => {
    h = await channelAHarness();
    h.sim.fail('bad-signature');
    const result = await h.adapter.verifyCallback(
      h.sim.config(),
      h.sim.callback('TRANSACTION.SUCCESS', 'transaction', {}),
      h.clock(),
    );
    expect(result).toEqual({ valid: false, reason: expect.stringContaining('certificate download not trusted') });
  });

  it('verifies the download signed in public-key mode with the configured platform public key', async () => {
    h = await channelAHarness();
    h.sim.signWith('publicKey');
    await h.adapter.createPayment(h.sim.config({ publicKeyMode: true }), order('C5'));
    h.sim.pay('C5');
    h.sim.signWith('certificate');
    const result = await h.adapter.verifyCallback(
      h.sim.config({ publicKeyMode: true }),
      h.sim.paymentCallback('C5'),
      h.clock(),
    );
    expect(result.valid).toBe(true);
  });

  it('accepts a PKCS#1 merchant private key', async () => {
    h = await channelAHarness({ merchantKeyFormat: 'pkcs1' });
    expect(h.sim.merchantPrivateKey).toContain('BEGIN RSA PRIVATE KEY');
    await expect(h.adapter.createPayment(h.sim.config(), order('C6'))).resolves.toMatchObject({
      payload: { codeUrl: expect.any(String) },
    });
  });
});
