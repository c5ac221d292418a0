import {
  createPrivateKey,
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AlipaySdk } from 'alipay-sdk';
import type { ChannelBConfig, ChannelBSignType } from '../../../src/modules/payment/channels/channel-b/config.ts';
import type { Delivery } from './channel-a.ts';
import { createRootCa, issueCertificate } from './pki.ts';

/**
 * The Alipay (channel_b) half of the channel simulator: the OpenAPI 2.0 gateway for the
 * alipay.trade.* calls the adapter makes, and asynchronous notifies signed as the wallet signs
 * them. Its signing code is written apart from the adapter's on purpose — the tests check both
 * against alipay-sdk, so the two cannot share one misunderstanding.
 */
export type SimTrade = {
  outTradeNo: string;
  tradeNo: string;
  totalAmount: string;
  subject: string;
  notifyUrl: string;
  /** CREATED: precreated, not scanned — the gateway does not know the trade yet */
  status: 'CREATED' | 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED';
  gmtPayment: string | null;
  refunds: Map<string, { amount: string; at: string }>;
};

export type ChannelBSimOptions = {
  mode?: 'publicKey' | 'cert';
  signType?: ChannelBSignType;
  appKeyFormat?: 'pkcs1' | 'pkcs8';
  appId?: string;
  /** loopback port to listen on; a free one when absent */
  port?: number;
  /** key material of an earlier run (`keys()`); new keys when absent */
  keys?: ChannelBKeys;
};

/** The simulator's key material as text, to start it again with the same app and wallet keys. */
export type ChannelBKeys = {
  appPrivateKeyPem: string;
  walletPrivateKeyPem: string;
  /** certificate mode: the app, wallet and root certificates */
  certs?: { app: string; wallet: string; root: string };
};

const ALG: Record<ChannelBSignType, string> = { RSA2: 'RSA-SHA256', RSA: 'RSA-SHA1' };

function chinaTime(d: Date): string {
  return new Date(d.getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** Alipay's string to sign: non-empty parameters but the excluded ones, sorted, `k=v&…`. */
function content(params: Record<string, string>, exclude: string[]): string {
  return Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k])
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export async function startChannelBSimulator(opts: ChannelBSimOptions = {}) {
  const signType = opts.signType ?? 'RSA2';
  const appId = opts.appId ?? '2021000000000001';
  const saved = opts.keys;
  const app = saved ? pairOf(saved.appPrivateKeyPem) : newPair();
  let walletKeyPem = saved?.walletPrivateKeyPem;
  let pems = saved?.certs;
  if (opts.mode === 'cert' && !pems) ({ pems, walletKeyPem } = await issueCertificates(appId, app));
  const { privateKey: walletKey, publicKey: walletPublic } = walletKeyPem ? pairOf(walletKeyPem) : newPair();
  let certs: { app: string; wallet: string; root: string; walletSn: string; appSn: string; rootSn: string } | null =
    null;
  if (opts.mode === 'cert' && pems) {
    // The SNs the gateway expects and answers with are computed by alipay-sdk, not by the adapter's
    // code: a wrong SN rule in the adapter then fails every certificate-mode call.
    const sdkConfig = new AlipaySdk({
      appId,
      privateKey: app.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
      keyType: 'PKCS8',
      appCertContent: pems.app,
      alipayPublicCertContent: pems.wallet,
      alipayRootCertContent: pems.root,
    }).config;
    certs = {
      ...pems,
      walletSn: sdkConfig.alipayCertSn ?? '',
      appSn: sdkConfig.appCertSn ?? '',
      rootSn: sdkConfig.alipayRootCertSn ?? '',
    };
  }

  const trades = new Map<string, SimTrade>();
  const received: Record<string, string>[] = [];
  /**
   * the next gateway answers, raw, instead of the real one (garbage, HTTP errors); `drop`: the
   * call is carried out (a precreate makes its trade) but the connection ends unanswered, as when
   * an answer is lost on the way back
   */
  const faults: ({ status: number; body: string } | { drop: true })[] = [];
  let seq = 0;

  const sign = (text: string) => createSign(ALG[signType]).update(text, 'utf8').sign(walletKey, 'base64');

  function answer(method: string, body: Record<string, unknown>): string {
    const key = `${method.replaceAll('.', '_')}_response`;
    const inner = JSON.stringify(body);
    const sn = certs ? `,"alipay_cert_sn":"${certs.walletSn}"` : '';
    return `{"${key}":${inner}${sn},"sign":"${sign(inner)}"}`;
  }

  const ok = (fields: Record<string, unknown>) => ({ code: '10000', msg: 'Success', ...fields });
  const bizFail = (sub: string) => ({ code: '40004', msg: 'Business Failed', sub_code: sub, sub_msg: sub });

  function handle(params: Record<string, string>): string {
    const method = params.method ?? '';
    const signed = createVerify(ALG[signType])
      .update(content(params, ['sign']), 'utf8')
      .verify(app.publicKey, params.sign ?? '', 'base64');
    if (!signed || params.app_id !== appId) {
      return answer(method, {
        code: '40002',
        msg: 'Invalid Arguments',
        sub_code: 'isv.invalid-signature',
        sub_msg: 'bad signature',
      });
    }
    if (certs && (params.app_cert_sn !== certs.appSn || params.alipay_root_cert_sn !== certs.rootSn)) {
      return answer(method, {
        code: '40002',
        msg: 'Invalid Arguments',
        sub_code: 'isv.app-cert-sn-invalid',
        sub_msg: 'cert sn',
      });
    }
    const biz = JSON.parse(params.biz_content ?? '{}') as Record<string, string>;
    const trade = trades.get(biz.out_trade_no ?? '');
    const known = trade && trade.status !== 'CREATED' ? trade : null;
    switch (method) {
      case 'alipay.trade.precreate': {
        const t = trade ?? {
          outTradeNo: biz.out_trade_no ?? '',
          tradeNo: `2026${String(++seq).padStart(24, '0')}`,
          totalAmount: biz.total_amount ?? '',
          subject: biz.subject ?? '',
          notifyUrl: params.notify_url ?? '',
          status: 'CREATED' as const,
          gmtPayment: null,
          refunds: new Map(),
        };
        trades.set(t.outTradeNo, t);
        return answer(
          method,
          ok({ out_trade_no: t.outTradeNo, qr_code: `https://qr.alipay.com/bax${t.tradeNo.slice(-8)}` }),
        );
      }
      case 'alipay.trade.query':
        if (!known) return answer(method, bizFail('ACQ.TRADE_NOT_EXIST'));
        return answer(
          method,
          ok({
            trade_no: known.tradeNo,
            out_trade_no: known.outTradeNo,
            trade_status: known.status,
            total_amount: known.totalAmount,
            ...(known.gmtPayment ? { send_pay_date: known.gmtPayment } : {}),
          }),
        );
      case 'alipay.trade.close':
        if (!known) return answer(method, bizFail('ACQ.TRADE_NOT_EXIST'));
        if (known.status !== 'WAIT_BUYER_PAY') return answer(method, bizFail('ACQ.TRADE_STATUS_ERROR'));
        known.status = 'TRADE_CLOSED';
        return answer(method, ok({ trade_no: known.tradeNo, out_trade_no: known.outTradeNo }));
      case 'alipay.trade.refund': {
        if (!known) return answer(method, bizFail('ACQ.TRADE_NOT_EXIST'));
        if (known.status !== 'TRADE_SUCCESS') return answer(method, bizFail('ACQ.TRADE_STATUS_ERROR'));
        const requestNo = biz.out_request_no ?? '';
        const repeat = known.refunds.has(requestNo);
        if (!repeat) {
          const after = refundedFen(known) + toFen(biz.refund_amount ?? '');
          if (after > toFen(known.totalAmount)) return answer(method, bizFail('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL'));
          known.refunds.set(requestNo, { amount: biz.refund_amount ?? '', at: chinaTime(new Date()) });
          if (after === toFen(known.totalAmount)) known.status = 'TRADE_CLOSED';
        }
        return answer(
          method,
          ok({
            trade_no: known.tradeNo,
            out_trade_no: known.outTradeNo,
            refund_fee: fromFen(refundedFen(known)),
            fund_change: repeat ? 'N' : 'Y',
            gmt_refund_pay: known.refunds.get(requestNo)?.at,
          }),
        );
      }
      case 'alipay.trade.fastpay.refund.query': {
        const refund = known?.refunds.get(biz.out_request_no ?? '');
        if (!known || !refund) return answer(method, ok({}));
        return answer(
          method,
          ok({
            trade_no: known.tradeNo,
            out_trade_no: known.outTradeNo,
            out_request_no: biz.out_request_no,
            total_amount: known.totalAmount,
            refund_amount: refund.amount,
            refund_status: 'REFUND_SUCCESS',
            gmt_refund_pay: refund.at,
          }),
        );
      }
      default:
        return answer(method, { code: '40004', msg: 'Business Failed', sub_code: 'isv.invalid-method' });
    }
  }

  const server: Server = createServer((req, res) => {
    readBody(req).then((raw) => {
      const fault = faults.shift();
      if (fault && 'status' in fault) {
        res.writeHead(fault.status, { 'content-type': 'text/html' }).end(fault.body);
        return;
      }
      // the gateway takes parameters from the query string and the form alike (alipay-sdk puts
      // the common ones in the URL, biz_content in the body)
      const query = new URL(req.url ?? '/', 'http://sim').searchParams;
      const params = { ...Object.fromEntries(query), ...Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
      received.push(params);
      const answer = handle(params);
      if (fault) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'text/html;charset=utf-8' }).end(answer);
    });
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve),
  );
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const appKeyText =
    opts.appKeyFormat === 'pkcs1'
      ? (app.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string)
      : (app.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const walletPublicPem = walletPublic.export({ type: 'spki', format: 'pem' }) as string;
  const gateway = `${baseUrl}/gateway.do`;
  const config: ChannelBConfig = certs
    ? {
        mode: 'cert',
        appId,
        appPrivateKey: appKeyText,
        signType,
        baseUrl: gateway,
        appPublicCert: certs.app,
        walletPublicCert: certs.wallet,
        walletRootCert: certs.root,
      }
    : {
        mode: 'publicKey',
        appId,
        appPrivateKey: appKeyText,
        signType,
        baseUrl: gateway,
        walletPublicKey: walletPublicPem,
      };

  /** Signs notify fields as the wallet does: without sign and sign_type; returns the form body. */
  function signNotify(fields: Record<string, string>): string {
    const all = { ...fields, sign_type: signType };
    const body = { ...all, sign: sign(content(all, ['sign', 'sign_type'])) };
    return new URLSearchParams(body).toString();
  }

  function notifyFields(outTradeNo: string, extra: Record<string, string> = {}): Record<string, string> {
    const t = trades.get(outTradeNo);
    if (!t) throw new Error(`no trade ${outTradeNo}`);
    return {
      gmt_create: t.gmtPayment ?? chinaTime(new Date()),
      charset: 'utf-8',
      seller_email: 'seller@example.com',
      subject: t.subject,
      buyer_id: '2088102177846880',
      notify_id: randomBytes(16).toString('hex'),
      notify_type: 'trade_status_sync',
      notify_time: chinaTime(new Date()),
      version: '1.0',
      app_id: appId,
      seller_id: '2088102177649450',
      trade_no: t.tradeNo,
      out_trade_no: t.outTradeNo,
      trade_status: t.status === 'CREATED' ? 'WAIT_BUYER_PAY' : t.status,
      total_amount: t.totalAmount,
      receipt_amount: t.totalAmount,
      buyer_pay_amount: t.totalAmount,
      ...(t.gmtPayment ? { gmt_payment: t.gmtPayment } : {}),
      ...extra,
    };
  }

  const tradeOf = (outTradeNo: string) => {
    const t = trades.get(outTradeNo);
    if (!t) throw new Error(`no trade ${outTradeNo}`);
    return t;
  };

  const sim = {
    baseUrl,
    /** The adapter configuration for this app (the gateway URL is `baseUrl` + /gateway.do). */
    config: (overrides: Partial<ChannelBConfig> = {}): ChannelBConfig =>
      ({ ...config, ...overrides }) as ChannelBConfig,
    appId,
    signType,
    /** PEM texts, for the SDK cross-checks */
    appPrivateKeyPem: appKeyText,
    walletPrivateKeyPem: walletKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    walletPublicKeyPem: walletPublicPem,
    certs,
    trades,
    received,
    faults,
    /** a precreated trade, as if the adapter's createPayment had made it */
    seed(outTradeNo: string, totalAmount: string, subject = 'Atrium order') {
      trades.set(outTradeNo, {
        outTradeNo,
        tradeNo: `2026${String(++seq).padStart(24, '0')}`,
        totalAmount,
        subject,
        notifyUrl: '',
        status: 'CREATED',
        gmtPayment: null,
        refunds: new Map(),
      });
    },
    /** the payer scanned and paid: the trade exists and succeeded; returns the notify body */
    pay(outTradeNo: string, at = new Date()): string {
      const t = tradeOf(outTradeNo);
      t.status = 'TRADE_SUCCESS';
      t.gmtPayment = chinaTime(at);
      return signNotify(notifyFields(outTradeNo));
    },
    /** the payer scanned but has not paid yet */
    scan(outTradeNo: string) {
      const t = trades.get(outTradeNo);
      if (t?.status === 'CREATED') t.status = 'WAIT_BUYER_PAY';
    },
    /** the notify Alipay sends after the refund `outRequestNo` of the trade */
    refundNotify(outTradeNo: string, outRequestNo: string): string {
      const t = trades.get(outTradeNo);
      const r = t?.refunds.get(outRequestNo);
      if (!t || !r) throw new Error(`no refund ${outRequestNo}`);
      return signNotify(
        notifyFields(outTradeNo, {
          out_biz_no: outRequestNo,
          refund_fee: fromFen(refundedFen(t)),
          gmt_refund: `${r.at}.000`,
          ...(t.status === 'TRADE_CLOSED' ? { gmt_close: r.at } : {}),
        }),
      );
    },
    signNotify,
    notifyFields,
    /** posts a notify as Alipay does; resolves with what the receiver answered */
    fireNotify,
    /** The payer pays, and the notify goes to the trade's notify_url (`fallbackUrl` when it had none). */
    async notifyPaid(outTradeNo: string, fallbackUrl: string): Promise<Delivery> {
      const t = tradeOf(outTradeNo);
      const body = t.status === 'TRADE_SUCCESS' ? signNotify(notifyFields(outTradeNo)) : sim.pay(outTradeNo);
      const url = t.notifyUrl || fallbackUrl;
      return { url, ...(await fireNotify(url, body)) };
    },
    /** A refund's notify (refunds succeed at once here), to its trade's notify_url or `fallbackUrl`. */
    async notifyRefund(refundNo: string, fallbackUrl: string): Promise<Delivery> {
      const t = [...trades.values()].find((x) => x.refunds.has(refundNo));
      if (!t) throw new Error(`no refund ${refundNo}`);
      const url = t.notifyUrl || fallbackUrl;
      return { url, ...(await fireNotify(url, sim.refundNotify(t.outTradeNo, refundNo))) };
    },
    /** The key material as text, for `opts.keys` of a later start. */
    keys(): ChannelBKeys {
      return {
        appPrivateKeyPem: app.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        walletPrivateKeyPem: walletKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        ...(certs ? { certs: { app: certs.app, wallet: certs.wallet, root: certs.root } } : {}),
      };
    },
    /** Stops listening and drops open connections (a client's keep-alive pool would hold it open). */
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return sim;
}

export type ChannelBSimulator = Awaited<ReturnType<typeof startChannelBSimulator>>;

function toFen(yuan: string): number {
  const [y = '0', f = ''] = yuan.split('.');
  return Number(y) * 100 + Number(f.padEnd(2, '0'));
}
function fromFen(fen: number): string {
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}
function refundedFen(t: SimTrade): number {
  let sum = 0;
  for (const r of t.refunds.values()) sum += toFen(r.amount);
  return sum;
}

async function fireNotify(url: string, body: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  return { status: res.status, body: await res.text() };
}

const newPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });

function pairOf(privatePem: string): { privateKey: KeyObject; publicKey: KeyObject } {
  const privateKey = createPrivateKey(privatePem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** Certificate mode: a wallet root issuing the app's certificate (over its key) and the wallet's. */
async function issueCertificates(appId: string, app: { privateKey: KeyObject; publicKey: KeyObject }) {
  const root = await createRootCa({
    subject: [
      ['C', 'CN'],
      ['O', 'Sim Wallet'],
      ['OU', 'Certification Authority'],
      ['CN', 'Sim Wallet Root R1'],
    ],
  });
  const appCert = await issueCertificate(root, {
    subject: [
      ['C', 'CN'],
      ['O', 'Atrium'],
      ['CN', appId],
    ],
    keyPair: app,
  });
  const walletCert = await issueCertificate(root, {
    subject: [
      ['C', 'CN'],
      ['O', 'Sim Wallet'],
      ['CN', 'Sim Wallet public key'],
    ],
  });
  return {
    pems: { app: appCert.certPem, wallet: walletCert.certPem, root: root.certPem },
    walletKeyPem: walletCert.keyPem,
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
