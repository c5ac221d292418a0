import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Aes, Decorator, Formatter, Rsa } from 'wechatpay-axios-plugin';
import { channelAHarness, order } from './channel-a-harness.ts';

/**
 * Cross-checks with the published SDK `wechatpay-axios-plugin` (a test-only dependency): what the
 * simulator signs and encrypts, the SDK verifies and decrypts; what the SDK signs and encrypts,
 * the adapter (and the simulator's request check) accept. So simulator and adapter cannot share a
 * misunderstanding of the v3 formats. Only its Rsa/Aes/Formatter/Decorator functions are used:
 * its certificate-download command keeps the certificates where its verifier never reads them.
 */
describe('channel_a against wechatpay-axios-plugin', () => {
  let h: Awaited<ReturnType<typeof channelAHarness>>;
  beforeAll(async () => {
    h = await channelAHarness();
    await h.adapter.createPayment(h.sim.config(), order('S1', 2500));
    h.sim.pay('S1');
  });
  afterAll(() => h.sim.close());

  const certificateKey = () => {
    const cert = h.sim.certificates.find((c) => c.serial === h.sim.signerSerial);
    if (!cert) throw new Error('no signer');
    return cert;
  };

  it('the SDK verifies and decrypts a simulator callback', () => {
    const cb = h.sim.paymentCallback('S1');
    const body = cb.rawBody.toString('utf8');
    const message = Formatter.response(cb.headers['wechatpay-timestamp'], cb.headers['wechatpay-nonce'], body);
    const publicKey = Rsa.from(certificateKey().pem, Rsa.KEY_TYPE_PUBLIC);
    expect(Rsa.verify(message, cb.headers['wechatpay-signature'], publicKey)).toBe(true);
    const { resource } = JSON.parse(body) as {
      resource: { ciphertext: string; nonce: string; associated_data: string };
    };
    const plain = JSON.parse(
      Aes.AesGcm.decrypt(resource.ciphertext, h.sim.apiV3Key, resource.nonce, resource.associated_data),
    );
    expect(plain).toMatchObject({ out_trade_no: 'S1', trade_state: 'SUCCESS', amount: { total: 2500 } });
  });

  it.each(['certificate', 'publicKey'] as const)(
    'the adapter verifies a callback the SDK signed and encrypted (%s mode)',
    async (mode) => {
      const resource = {
        mchid: h.sim.mchId,
        appid: h.sim.appId,
        out_trade_no: 'S1',
        transaction_id: '4200000000202611240000000001',
        trade_type: 'NATIVE',
        trade_state: 'SUCCESS',
        success_time: '2026-11-24T18:00:00+08:00',
        amount: { total: 2500, payer_total: 2500, currency: 'CNY', payer_currency: 'CNY' },
      };
      const nonce = Formatter.nonce(12);
      const body = JSON.stringify({
        id: 'EV-2018022511223320873',
        create_time: '2026-11-24T18:00:01+08:00',
        resource_type: 'encrypt-resource',
        event_type: 'TRANSACTION.SUCCESS',
        summary: '支付成功',
        resource: {
          original_type: 'transaction',
          algorithm: 'AEAD_AES_256_GCM',
          ciphertext: Aes.AesGcm.encrypt(JSON.stringify(resource), h.sim.apiV3Key, nonce, 'transaction'),
          associated_data: 'transaction',
          nonce,
        },
      });
      h.sim.signWith(mode);
      const signerSerial = h.sim.signerSerial;
      h.sim.signWith('certificate');
      const privateKey = h.sim.platformPrivateKey(signerSerial);
      const timestamp = String(Formatter.timestamp());
      const headerNonce = Formatter.nonce();
      const signature = Rsa.sign(Formatter.response(timestamp, headerNonce, body), privateKey);
      const result = await h.adapter.verifyCallback(
        h.sim.config({ publicKeyMode: true }),
        {
          rawBody: Buffer.from(body),
          headers: {
            'wechatpay-serial': signerSerial,
            'wechatpay-signature': signature,
            'wechatpay-timestamp': timestamp,
            'wechatpay-nonce': headerNonce,
          },
        },
        h.clock(),
      );
      expect(result).toMatchObject({
        valid: true,
        notice: { orderNo: 'S1', amount: 2500, channelTradeNo: resource.transaction_id },
      });
    },
  );

  it('the SDK response verifier accepts a simulator API answer', async () => {
    const pathAndQuery = `/v3/pay/transactions/out-trade-no/S1?mchid=${h.sim.mchId}`;
    const res = await fetch(`${h.sim.baseUrl}${pathAndQuery}`, {
      headers: { authorization: sdkAuthorization('GET', pathAndQuery, '') },
    });
    expect(res.status).toBe(200);
    const data = await res.text();
    const headers = Object.fromEntries(res.headers.entries());
    const verify = Decorator.responseVerifier({ [h.sim.signerSerial]: certificateKey().pem }) as (
      this: unknown,
      data: string,
      headers: Record<string, string>,
      status: number,
    ) => unknown;
    const verified = verify.call({ url: pathAndQuery }, data, headers, 200);
    expect(verified).toBe(data);
  });

  it('the simulator accepts a request the SDK signed (its Authorization check is not ours)', async () => {
    const pathAndQuery = `/v3/pay/transactions/out-trade-no/S1?mchid=${h.sim.mchId}`;
    const ok = await fetch(`${h.sim.baseUrl}${pathAndQuery}`, {
      headers: { authorization: sdkAuthorization('GET', pathAndQuery, '') },
    });
    expect(ok.status).toBe(200);
    const wrongPath = await fetch(`${h.sim.baseUrl}${pathAndQuery}`, {
      headers: { authorization: sdkAuthorization('GET', '/v3/other', '') },
    });
    expect(wrongPath.status).toBe(401);
  });

  it("the SDK verifies the adapter's request signature (Authorization header)", async () => {
    await h.adapter.queryOrder(h.sim.config(), 'S1');
    await h.adapter.createPayment(h.sim.config(), order('S2'));
    for (const request of h.sim.requests.slice(-2)) {
      const fields = Object.fromEntries(
        [...request.authorization.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
      );
      expect(request.authorization.startsWith('WECHATPAY2-SHA256-RSA2048 ')).toBe(true);
      const message = Formatter.request(request.method, request.path, fields.timestamp, fields.nonce_str, request.body);
      expect(Rsa.verify(message, fields.signature, h.sim.merchantPublicKey)).toBe(true);
      expect(fields).toMatchObject({ mchid: h.sim.mchId, serial_no: h.sim.merchantSerialNo });
    }
  });

  it('the SDK decrypts the certificates the simulator serves for download', async () => {
    const path = '/v3/certificates';
    const res = await fetch(`${h.sim.baseUrl}${path}`, {
      headers: { authorization: sdkAuthorization('GET', path, '') },
    });
    const { data } = (await res.json()) as {
      data: {
        serial_no: string;
        encrypt_certificate: { ciphertext: string; nonce: string; associated_data: string };
      }[];
    };
    for (const entry of data) {
      const e = entry.encrypt_certificate;
      const pem = Aes.AesGcm.decrypt(e.ciphertext, h.sim.apiV3Key, e.nonce, e.associated_data);
      expect(pem).toBe(h.sim.certificates.find((c) => c.serial === entry.serial_no)?.pem);
    }
  });

  function sdkAuthorization(method: string, pathAndQuery: string, body: string): string {
    const timestamp = Formatter.timestamp();
    const nonce = Formatter.nonce();
    const signature = Rsa.sign(
      Formatter.request(method, pathAndQuery, timestamp, nonce, body),
      Rsa.from(h.sim.merchantPrivateKey, Rsa.KEY_TYPE_PRIVATE),
    );
    return Formatter.authorization(h.sim.mchId, nonce, signature, timestamp, h.sim.merchantSerialNo);
  }
});
