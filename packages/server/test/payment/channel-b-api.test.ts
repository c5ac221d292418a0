import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannelBAdapter } from '../../src/modules/payment/channels/channel-b/adapter.ts';
import { ChannelCallError, type OrderForChannel } from '../../src/modules/payment/channels/types.ts';
import { parseAllowList } from '../../src/platform/egress/allow-list.ts';
import { createEgress } from '../../src/platform/egress/client.ts';
import { type ChannelBSimulator, startChannelBSimulator } from './simulator/channel-b.ts';

/** channel_b gateway calls against the simulator, in both key modes, and every way a call can fail. */
const adapter = createChannelBAdapter({
  egress: createEgress({ allow: parseAllowList('127.0.0.1') }),
  clock: () => new Date('2026-11-24T02:00:00Z'),
});

const order = (orderNo: string, amount = 1234): OrderForChannel => ({
  orderNo,
  amount,
  currency: 'CNY',
  subject: 'Atrium order',
  expiresAt: new Date('2026-11-24T03:00:00Z'),
  notifyUrl: 'https://atrium.example/api/public/payment/notify/channel_b',
});

describe.each(['publicKey', 'cert'] as const)('%s mode', (mode) => {
  let sim: ChannelBSimulator;
  beforeAll(async () => {
    sim = await startChannelBSimulator({ mode });
  });
  afterAll(() => sim.close());

  it('createPayment precreates a QR trade with the amount in yuan, the notify URL and Beijing-time expiry', async () => {
    const start = await adapter.createPayment(sim.config(), order('A-1'));
    expect(start.payload.qrCode).toMatch(/^https:\/\/qr\.alipay\.com\//);
    const req = sim.received.at(-1) ?? {};
    expect(req.method).toBe('alipay.trade.precreate');
    expect(req.notify_url).toBe('https://atrium.example/api/public/payment/notify/channel_b');
    expect(req.timestamp).toBe('2026-11-24 10:00:00');
    expect(JSON.parse(req.biz_content ?? '')).toEqual({
      out_trade_no: 'A-1',
      total_amount: '12.34',
      subject: 'Atrium order',
      time_expire: '2026-11-24 11:00:00',
    });
    if (mode === 'cert') {
      expect(req.app_cert_sn).toMatch(/^[0-9a-f]{32}$/);
      expect(req.alipay_root_cert_sn).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('queryOrder: not scanned yet → null; paid → succeeded with amount and trade number', async () => {
    await adapter.createPayment(sim.config(), order('A-2', 1));
    expect(await adapter.queryOrder(sim.config(), 'A-2')).toBeNull();
    sim.pay('A-2');
    const notice = await adapter.queryOrder(sim.config(), 'A-2');
    expect(notice).toMatchObject({
      scene: 'payment',
      orderNo: 'A-2',
      amount: 1,
      outcome: 'succeeded',
      currency: 'CNY',
    });
    expect(notice?.channelTradeNo).toBe(sim.trades.get('A-2')?.tradeNo);
  });

  it('closeOrder: unscanned is done, a waiting trade is closed, a paid one throws', async () => {
    await adapter.createPayment(sim.config(), order('A-3'));
    await adapter.closeOrder(sim.config(), 'A-3');
    sim.scan('A-3');
    await adapter.closeOrder(sim.config(), 'A-3');
    expect((await adapter.queryOrder(sim.config(), 'A-3'))?.outcome).toBe('closed');
    await adapter.createPayment(sim.config(), order('A-4'));
    sim.pay('A-4');
    await expect(adapter.closeOrder(sim.config(), 'A-4')).rejects.toMatchObject({
      name: 'ChannelCallError',
      detail: { code: 'ACQ.TRADE_STATUS_ERROR' },
    });
  });

  it('createRefund / queryRefund: partial refunds, a repeat, one too many', async () => {
    await adapter.createPayment(sim.config(), order('A-5', 1000));
    sim.pay('A-5');
    const refund = (refundNo: string, amount: number) => ({
      orderNo: 'A-5',
      refundNo,
      channelTradeNo: null,
      amount,
      orderAmount: 1000,
      currency: 'CNY',
      reason: 'changed mind',
      notifyUrl: '',
    });
    expect(await adapter.queryRefund(sim.config(), { orderNo: 'A-5', refundNo: 'R-1' })).toBeNull();
    const first = await adapter.createRefund(sim.config(), refund('R-1', 600));
    expect(first).toMatchObject({ scene: 'refund', refundNo: 'R-1', amount: 600, outcome: 'succeeded' });
    expect(JSON.parse(sim.received.at(-1)?.biz_content ?? '')).toMatchObject({
      refund_amount: '6.00',
      out_request_no: 'R-1',
    });
    // fund_change=N on a repeat: the money did not move on this call, so the caller must query
    expect((await adapter.createRefund(sim.config(), refund('R-1', 600))).outcome).toBe('pending');
    expect(await adapter.queryRefund(sim.config(), { orderNo: 'A-5', refundNo: 'R-1' })).toMatchObject({
      amount: 600,
      outcome: 'succeeded',
      refundNo: 'R-1',
    });
    const tooMuch = await adapter.createRefund(sim.config(), refund('R-2', 401));
    expect(tooMuch.outcome).toBe('failed');
  });
});

describe('calls that cannot be trusted', () => {
  let sim: ChannelBSimulator;
  beforeAll(async () => {
    sim = await startChannelBSimulator();
  });
  afterAll(() => sim.close());

  const failure = async (fn: () => Promise<unknown>) => {
    const err = await fn().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ChannelCallError);
    return err as ChannelCallError;
  };

  it('gateway unreachable', async () => {
    const err = await failure(() =>
      adapter.queryOrder({ ...sim.config(), baseUrl: 'http://127.0.0.1:1/gateway.do' }, 'X'),
    );
    // nothing listens there: the request never left, and the message says where it went
    expect(err).toMatchObject({ neverSent: true, detail: { code: 'egress.network_error' } });
    expect(err.message).toBe('channel_b alipay.trade.query: 127.0.0.1:1: the connection failed (ECONNREFUSED)');
  });
  it('a destination the egress allow-list refuses is a ChannelCallError naming the entry that allows it', async () => {
    const strict = createChannelBAdapter({ egress: createEgress(), clock: () => new Date() });
    const err = await failure(() => strict.queryOrder(sim.config(), 'X'));
    const port = new URL(sim.baseUrl).port;
    expect(err).toMatchObject({ neverSent: true, detail: { code: 'egress.blocked_address' } });
    expect(err.message).toContain(`the egress guard refused 127.0.0.1:${port}`);
    expect(err.message).toContain(`EGRESS_ALLOW_HOSTS=127.0.0.1:${port}`);
  });
  it('an HTTP error answer may have been taken: not neverSent', async () => {
    sim.faults.push({ status: 502, body: '<html>bad gateway</html>' });
    const err = await failure(() => adapter.queryOrder(sim.config(), 'X'));
    expect(err).toMatchObject({ neverSent: false, detail: { status: 502 } });
  });
  it('HTTP 502', async () => {
    sim.faults.push({ status: 502, body: 'bad gateway' });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'X'))).detail).toEqual({ status: 502 });
  });
  it('garbage instead of JSON', async () => {
    sim.faults.push({ status: 200, body: '<html>maintenance</html>' });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'X'))).message).toMatch(/not JSON/);
  });
  it('JSON without the method response', async () => {
    sim.faults.push({ status: 200, body: '{"other_response":{"code":"10000"},"sign":"x"}' });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'X'))).message).toMatch(
      /no alipay_trade_query_response/,
    );
  });
  it('a success answer without a signature', async () => {
    sim.faults.push({
      status: 200,
      body: '{"alipay_trade_query_response":{"code":"10000","trade_status":"TRADE_SUCCESS","total_amount":"1.00"}}',
    });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'X'))).detail.code).toBe('unsigned_answer');
  });
  it('an unsigned gateway error (e.g. our request signature refused) is reported, never applied', async () => {
    sim.faults.push({
      status: 200,
      body: '{"error_response":{"code":"40002","msg":"Invalid Arguments","sub_code":"isv.invalid-signature"}}',
    });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'X'))).detail.code).toBe('40002');
  });
  it('a signed answer whose content was changed', async () => {
    await adapter.createPayment(sim.config(), order('B-1', 100));
    sim.pay('B-1');
    const real = await fetchSigned(sim, 'B-1');
    sim.faults.push({ status: 200, body: real.replace('"total_amount":"1.00"', '"total_amount":"9.00"') });
    expect((await failure(() => adapter.queryOrder(sim.config(), 'B-1'))).detail.code).toBe('bad_signature');
  });
  it('our request signed with the wrong app key is refused by the gateway (a 40002 failure)', async () => {
    const other = await startChannelBSimulator();
    try {
      const config = { ...sim.config(), appPrivateKey: other.appPrivateKeyPem };
      const err = await failure(() => adapter.queryOrder(config, 'X'));
      expect(err.detail.code).toBe('isv.invalid-signature');
    } finally {
      await other.close();
    }
  });
  it('certificate mode: an answer for another wallet certificate SN (a rotation) is refused', async () => {
    const certSim = await startChannelBSimulator({ mode: 'cert' });
    try {
      await adapter.createPayment(certSim.config(), order('C-1'));
      const raw = await fetchSigned(certSim, 'C-1', 'alipay.trade.precreate');
      certSim.faults.push({
        status: 200,
        body: raw.replace(/"alipay_cert_sn":"[0-9a-f]+"/, '"alipay_cert_sn":"0123456789abcdef0123456789abcdef"'),
      });
      const err = await failure(() => adapter.createPayment(certSim.config(), order('C-1')));
      expect(err.detail.code).toBe('cert_sn_mismatch');
    } finally {
      await certSim.close();
    }
  });
});

/** The raw answer the simulator gives a correctly signed call, captured through the adapter's own request. */
async function fetchSigned(sim: ChannelBSimulator, orderNo: string, method = 'alipay.trade.query'): Promise<string> {
  let raw = '';
  const capture = createChannelBAdapter({
    egress: {
      check: async () => {},
      request: async (url, opts) => {
        const res = await createEgress({ allow: parseAllowList('127.0.0.1') }).request(url, opts);
        raw = res.body.toString('utf8');
        return res;
      },
    },
    clock: () => new Date(),
  });
  if (method === 'alipay.trade.query') await capture.queryOrder(sim.config(), orderNo);
  else await capture.createPayment(sim.config(), order(orderNo));
  return raw;
}
