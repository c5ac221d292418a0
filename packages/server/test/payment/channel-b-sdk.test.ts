import { AlipaySdk } from 'alipay-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelBAdapter } from '../../src/modules/payment/channels/channel-b/adapter.ts';
import type { ChannelBConfig } from '../../src/modules/payment/channels/channel-b/config.ts';
import { loadKeys } from '../../src/modules/payment/channels/channel-b/keys.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelBSimulator, startChannelBSimulator } from './simulator/channel-b.ts';

/**
 * alipay-sdk (the official Node SDK) as the oracle, both ways: it must accept what our simulator
 * signs (notifies, gateway answers) and our adapter must accept what it signs — so the simulator
 * and the adapter cannot agree on a mistake the channel would not make.
 */
const adapter = createChannelBAdapter({ egress: createEgress(), clock: () => new Date() });
const verify = (config: ChannelBConfig, body: string) =>
  adapter.verifyCallback(config, { rawBody: Buffer.from(body), headers: {} }, new Date());
const fields = (body: string) => Object.fromEntries(new URLSearchParams(body));

describe.each([
  ['RSA2', 'publicKey'],
  ['RSA', 'publicKey'],
  ['RSA2', 'cert'],
] as const)('%s, %s mode', (signType, mode) => {
  let sim: ChannelBSimulator;
  /** the SDK as the merchant: verifies notifies and gateway answers with the wallet key */
  let merchantSdk: AlipaySdk;
  /** the SDK holding the wallet's private key: signs notifies as the wallet would */
  let walletSdk: AlipaySdk;
  beforeAll(async () => {
    sim = await startChannelBSimulator({ signType, mode });
    const common = { appId: sim.appId, signType, gateway: sim.config().baseUrl, keyType: 'PKCS8' as const };
    merchantSdk = sim.certs
      ? new AlipaySdk({
          ...common,
          privateKey: sim.appPrivateKeyPem,
          appCertContent: sim.certs.app,
          alipayPublicCertContent: sim.certs.wallet,
          alipayRootCertContent: sim.certs.root,
        })
      : new AlipaySdk({ ...common, privateKey: sim.appPrivateKeyPem, alipayPublicKey: sim.walletPublicKeyPem });
    walletSdk = new AlipaySdk({ ...common, privateKey: sim.walletPrivateKeyPem });
  });
  afterAll(() => sim.close());

  it('checkNotifySign accepts the simulator payment and refund notifies, and refuses a tampered one', () => {
    sim.seed('1', '66.60', 'Atrium 订单 & more');
    const paid = sim.pay('1');
    expect(merchantSdk.checkNotifySign(fields(paid))).toBe(true);
    sim.trades.get('1')?.refunds.set('R1', { amount: '6.60', at: '2026-11-24 12:00:00' });
    expect(merchantSdk.checkNotifySign(fields(sim.refundNotify('1', 'R1')))).toBe(true);
    expect(merchantSdk.checkNotifySign({ ...fields(paid), total_amount: '0.01' })).toBe(false);
  });

  it('a notify the SDK signs with the wallet key verifies with the adapter (payment and refund)', async () => {
    sim.seed('2', '12.30', 'Atrium 订单 & more');
    sim.pay('2');
    const payment = walletSdk.sdkExecute('alipay.trade.notify', sim.notifyFields('2'));
    const r = await verify(sim.config(), payment);
    expect(r.valid && [r.notice.scene, r.notice.amount, r.notice.outcome]).toEqual(['payment', 1230, 'succeeded']);
    expect(r.valid && r.notice.payload.subject).toBe('Atrium 订单 & more');

    sim.trades.get('2')?.refunds.set('R2', { amount: '2.30', at: '2026-11-24 12:00:00' });
    const refundFields = fields(sim.refundNotify('2', 'R2'));
    delete refundFields.sign;
    delete refundFields.sign_type;
    const refund = walletSdk.sdkExecute('alipay.trade.notify', refundFields);
    const rr = await verify(sim.config(), refund);
    expect(rr.valid && [rr.notice.scene, rr.notice.refundNo, rr.notice.amount]).toEqual(['refund', 'R2', 230]);

    const tampered = payment.replace('total_amount=12.30', 'total_amount=12.31');
    expect(tampered).not.toBe(payment);
    expect((await verify(sim.config(), tampered)).valid).toBe(false);
  });

  it('SDK gateway calls are accepted by the simulator and its signed answers verify in the SDK', async () => {
    sim.seed('3', '1.00', 'Atrium 订单 & more');
    sim.pay('3');
    const result = await merchantSdk.exec(
      'alipay.trade.query',
      { bizContent: { out_trade_no: '3' } },
      { validateSign: true },
    );
    expect(result).toMatchObject({ code: '10000', tradeStatus: 'TRADE_SUCCESS', totalAmount: '1.00' });
    const refund = await merchantSdk.exec(
      'alipay.trade.refund',
      { bizContent: { out_trade_no: '3', refund_amount: '0.40', out_request_no: 'R3' } },
      { validateSign: true },
    );
    expect(refund).toMatchObject({ code: '10000', fundChange: 'Y', refundFee: '0.40' });
  });

  if (mode === 'cert') {
    it('the adapter computes app_cert_sn, alipay_root_cert_sn and alipay_cert_sn as the SDK does', () => {
      const sn = loadKeys(sim.config()).certSn;
      expect(sn).toEqual({
        app: merchantSdk.config.appCertSn,
        walletRoot: merchantSdk.config.alipayRootCertSn,
        wallet: merchantSdk.config.alipayCertSn,
      });
    });
  }
});

it('the SDK PKCS#8 quirk: without keyType PKCS8 it re-armours a PKCS#8 key as PKCS#1 and cannot sign', () => {
  return startChannelBSimulator().then(async (sim) => {
    try {
      const sdk = new AlipaySdk({ appId: sim.appId, privateKey: sim.walletPrivateKeyPem });
      expect(() => sdk.sdkExecute('alipay.trade.notify', { out_trade_no: '1' })).toThrow();
    } finally {
      await sim.close();
    }
  });
});
