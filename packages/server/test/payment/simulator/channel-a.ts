import {
  createCipheriv,
  createPrivateKey,
  createPublicKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelAConfig } from '../../../src/modules/payment/channels/channel-a/config.ts';
import type { Issued } from './pki.ts';
import { createSelfSigned, loadIssued } from './pki.ts';

/**
 * A channel_a (WeChat Pay API v3) simulator: the merchant APIs the adapter calls, signed and
 * encrypted as the channel does, over its own keys, and callbacks built the same way. Written from
 * the channel's documentation, independently of the adapter's code; the SDK cross-checks in
 * channel-a-sdk.test.ts keep the two honest.
 *
 * Signer: the platform certificate in use (`rotate()` publishes a new one and signs with it), or
 * the platform public key (`signWith('publicKey')`, serial `PUB_KEY_ID_…`).
 */
export type Fault = 'garbage' | 'unsigned' | 'bad-signature' | 'server-error' | null;

type Transaction = {
  appid: string;
  mchid: string;
  out_trade_no: string;
  transaction_id?: string;
  trade_type: 'NATIVE';
  trade_state: string;
  trade_state_desc: string;
  success_time?: string;
  notify_url: string;
  amount: { total: number; payer_total?: number; currency: string; payer_currency?: string };
};

type Refund = {
  refund_id: string;
  out_refund_no: string;
  transaction_id: string;
  out_trade_no: string;
  channel: 'ORIGINAL';
  user_received_account: string;
  create_time: string;
  success_time?: string;
  status: string;
  notify_url: string;
  amount: { total: number; refund: number; payer_total: number; payer_refund: number; currency: string };
};

type Signer = { serial: string; privateKey: KeyObject };
type SignedHeaders = Record<
  'wechatpay-serial' | 'wechatpay-signature' | 'wechatpay-timestamp' | 'wechatpay-nonce' | 'wechatpay-signature-type',
  string
>;
type PlatformCertificate = Signer & { pem: string; notBefore: Date; notAfter: Date };

/** The simulator's key material as text, to start it again with the same merchant and platform keys. */
export type ChannelAKeys = {
  apiV3Key: string;
  merchantSerialNo: string;
  merchantPrivateKeyPem: string;
  publicKeyId: string;
  platformPublicKeyPrivatePem: string;
  /** the platform certificates in issue order; the last one signs */
  certificates: { certPem: string; keyPem: string }[];
};

export type ChannelASimOptions = {
  merchantKeyFormat?: 'pkcs8' | 'pkcs1';
  now?: () => Date;
  /** loopback port to listen on; a free one when absent */
  port?: number;
  /** key material of an earlier run (`keys()`); new keys when absent */
  keys?: ChannelAKeys;
};

const DAY = 24 * 60 * 60 * 1000;

function rsaPair() {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

function alnum(size: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(size), (b) => chars[b % chars.length]).join('');
}

/** 40 hex digits like the channel's serials, the first 1–7 so the DER INTEGER is minimal and positive as written. */
function serialNumber(): string {
  return `${1 + ((randomBytes(1)[0] ?? 0) % 7)}${randomBytes(20).toString('hex').toUpperCase().slice(1, 40)}`;
}

/** RFC 3339 in Beijing time, as the channel writes success_time and create_time. */
function beijing(at: Date): string {
  return `${new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

export async function startChannelASimulator(opts: ChannelASimOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const saved = opts.keys;
  const mchId = '1900009191';
  const appId = 'wxd678efh567hg6787';
  const apiV3Key = saved?.apiV3Key ?? alnum(32);
  const merchant = saved ? pairOf(saved.merchantPrivateKeyPem) : rsaPair();
  const merchantSerialNo = saved?.merchantSerialNo ?? serialNumber();
  const merchantPem = merchant.privateKey.export({ type: opts.merchantKeyFormat ?? 'pkcs8', format: 'pem' }).toString();
  const platformPublic = saved ? pairOf(saved.platformPublicKeyPrivatePem) : rsaPair();
  const publicKeyId =
    saved?.publicKeyId ?? `PUB_KEY_ID_0119000091912025${randomBytes(6).toString('hex').toUpperCase()}`;

  const certificates: PlatformCertificate[] = [];
  let fault: Fault = null;
  const transactions = new Map<string, Transaction>();
  const refunds = new Map<string, Refund>();
  const requests: { method: string; path: string; body: string; authorization: string }[] = [];

  function keep(issued: Issued): PlatformCertificate {
    const { cert } = issued;
    const platform = {
      serial: cert.serialNumber.toUpperCase(),
      privateKey: issued.privateKey,
      pem: issued.certPem,
      notBefore: new Date(cert.validFrom),
      notAfter: new Date(cert.validTo),
    };
    certificates.push(platform);
    return platform;
  }

  /** A platform certificate: self-signed, the serial and validity the adapter reads. */
  async function issueCertificate(validity?: { notBefore: Date; notAfter: Date }): Promise<PlatformCertificate> {
    const issued = await createSelfSigned({
      subject: [['CN', 'Tenpay.com Root CA']],
      serialNumber: serialNumber(),
      notBefore: validity?.notBefore ?? new Date(now().getTime() - DAY),
      notAfter: validity?.notAfter ?? new Date(now().getTime() + 5 * 365 * DAY),
    });
    return keep(issued);
  }
  for (const c of saved?.certificates ?? []) keep(await loadIssued(c));
  let signer: Signer = certificates[certificates.length - 1] ?? (await issueCertificate());

  function encrypt(plaintext: string, associatedData: string) {
    const nonce = alnum(12);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(apiV3Key), Buffer.from(nonce));
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return {
      algorithm: 'AEAD_AES_256_GCM',
      ciphertext: ciphertext.toString('base64'),
      associated_data: associatedData,
      nonce,
    };
  }

  /** The four signature headers over `timestamp\nnonce\nbody\n`. */
  function signatureHeaders(body: string, at = now(), by: Signer = signer): SignedHeaders {
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const nonce = alnum(32);
    const signature = createSign('RSA-SHA256')
      .update(`${timestamp}\n${nonce}\n${body}\n`)
      .sign(by.privateKey, 'base64');
    return {
      'wechatpay-serial': by.serial,
      'wechatpay-signature': signature,
      'wechatpay-timestamp': timestamp,
      'wechatpay-nonce': nonce,
      'wechatpay-signature-type': 'WECHATPAY2-SHA256-RSA2048',
    };
  }

  function answer(res: ServerResponse, status: number, payload: unknown) {
    const body = fault === 'garbage' ? '<html>502 Bad Gateway</html>' : payload === null ? '' : JSON.stringify(payload);
    const headers: Record<string, string> = { 'request-id': randomUUID() };
    if (body) headers['content-type'] = 'application/json; charset=utf-8';
    if (fault !== 'unsigned') Object.assign(headers, signatureHeaders(fault === 'bad-signature' ? `${body} ` : body));
    res.writeHead(fault === 'server-error' ? 500 : status, headers).end(body);
  }

  /** The merchant's Authorization header: scheme, serial, replay window, SHA256withRSA. */
  function authorizationProblem(req: IncomingMessage, path: string, body: string): string | null {
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('WECHATPAY2-SHA256-RSA2048 ')) return 'unsupported authorization scheme';
    const fields = Object.fromEntries(
      [...header.slice(26).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    if (fields.mchid !== mchId) return 'mchid mismatch';
    if (fields.serial_no !== merchantSerialNo) return 'merchant serial mismatch';
    if (Math.abs(now().getTime() / 1000 - Number(fields.timestamp)) > 300) return 'timestamp expired';
    const message = `${req.method}\n${path}\n${fields.timestamp}\n${fields.nonce_str}\n${body}\n`;
    const ok = createVerify('RSA-SHA256')
      .update(message)
      .verify(merchant.publicKey, fields.signature ?? '', 'base64');
    return ok ? null : 'signature does not verify';
  }

  function route(method: string, path: string, body: string): { status: number; payload: unknown } {
    const url = new URL(path, 'http://simulator');
    const input = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    if (method === 'GET' && url.pathname === '/v3/certificates') {
      const data = certificates.map((c) => ({
        serial_no: c.serial,
        effective_time: beijing(c.notBefore),
        expire_time: beijing(c.notAfter),
        encrypt_certificate: encrypt(c.pem, 'certificate'),
      }));
      return { status: 200, payload: { data } };
    }
    if (method === 'POST' && url.pathname === '/v3/pay/transactions/native') {
      const amount = input.amount as { total: number; currency?: string };
      const no = String(input.out_trade_no);
      if (!transactions.has(no)) {
        transactions.set(no, {
          appid: String(input.appid),
          mchid: String(input.mchid),
          out_trade_no: no,
          trade_type: 'NATIVE',
          trade_state: 'NOTPAY',
          trade_state_desc: '订单未支付',
          notify_url: String(input.notify_url),
          amount: { total: amount.total, currency: amount.currency ?? 'CNY' },
        });
      }
      return { status: 200, payload: { code_url: `weixin://wxpay/bizpayurl?pr=${alnum(7)}` } };
    }
    const trade = url.pathname.match(/^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)(\/close)?$/);
    if (trade) {
      const t = transactions.get(decodeURIComponent(trade[1] ?? ''));
      if (!t) return { status: 404, payload: { code: 'ORDER_NOT_EXIST', message: '订单不存在' } };
      if (method === 'GET' && !trade[2]) return { status: 200, payload: publicTransaction(t) };
      if (method === 'POST' && trade[2]) {
        if (t.trade_state === 'SUCCESS') return { status: 400, payload: { code: 'ORDERPAID', message: '订单已支付' } };
        Object.assign(t, { trade_state: 'CLOSED', trade_state_desc: '订单已关闭' });
        return { status: 204, payload: null };
      }
    }
    if (method === 'POST' && url.pathname === '/v3/refund/domestic/refunds') {
      const t = [...transactions.values()].find(
        (x) =>
          x.out_trade_no === input.out_trade_no || (input.transaction_id && x.transaction_id === input.transaction_id),
      );
      if (t?.trade_state !== 'SUCCESS')
        return { status: 404, payload: { code: 'RESOURCE_NOT_EXISTS', message: '订单不存在' } };
      const amount = input.amount as { refund: number; total: number; currency: string };
      const refund: Refund = {
        refund_id: `50000${randomBytes(12).toString('hex').replace(/\D/g, '').padEnd(20, '7').slice(0, 20)}`,
        out_refund_no: String(input.out_refund_no),
        transaction_id: t.transaction_id ?? '',
        out_trade_no: t.out_trade_no,
        channel: 'ORIGINAL',
        user_received_account: '支付用户零钱',
        create_time: beijing(now()),
        status: 'PROCESSING',
        notify_url: String(input.notify_url),
        amount: {
          total: amount.total,
          refund: amount.refund,
          payer_total: amount.total,
          payer_refund: amount.refund,
          currency: amount.currency,
        },
      };
      refunds.set(refund.out_refund_no, refund);
      return { status: 200, payload: publicRefund(refund) };
    }
    const refundQuery = url.pathname.match(/^\/v3\/refund\/domestic\/refunds\/([^/]+)$/);
    if (method === 'GET' && refundQuery) {
      const r = refunds.get(decodeURIComponent(refundQuery[1] ?? ''));
      return r
        ? { status: 200, payload: publicRefund(r) }
        : { status: 404, payload: { code: 'RESOURCE_NOT_EXISTS', message: '退款单不存在' } };
    }
    return { status: 404, payload: { code: 'NOT_FOUND', message: 'no such API' } };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, body, authorization: req.headers.authorization ?? '' });
      const problem = authorizationProblem(req, path, body);
      if (problem) return answer(res, 401, { code: 'SIGN_ERROR', message: problem });
      try {
        const { status, payload } = route(req.method ?? 'GET', path, body);
        answer(res, status, payload);
      } catch (err) {
        answer(res, 400, { code: 'PARAM_ERROR', message: (err as Error).message });
      }
    });
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve),
  );
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function transactionOf(orderNo: string): Transaction {
    const t = transactions.get(orderNo);
    if (!t) throw new Error(`simulator: no order ${orderNo}`);
    return t;
  }

  function refundOf(refundNo: string): Refund {
    const r = refunds.get(refundNo);
    if (!r) throw new Error(`simulator: no refund ${refundNo}`);
    return r;
  }

  /** A callback exactly as the channel sends it; `at` sets Wechatpay-Timestamp (for the replay window). */
  function callback(
    eventType: string,
    originalType: 'transaction' | 'refund',
    resource: object,
    at = now(),
    by = signer,
  ) {
    const summary = originalType === 'transaction' ? '支付成功' : '退款状态';
    const envelope = {
      id: randomUUID(),
      create_time: beijing(at),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: { original_type: originalType, ...encrypt(JSON.stringify(resource), originalType) },
    };
    const body = JSON.stringify(envelope);
    const headers: SignedHeaders & Record<string, string> = {
      'content-type': 'application/json',
      ...signatureHeaders(body, at, by),
    };
    return { rawBody: Buffer.from(body, 'utf8'), headers };
  }

  const sim = {
    baseUrl,
    mchId,
    appId,
    apiV3Key,
    merchantSerialNo,
    merchantPrivateKey: merchantPem,
    merchantPublicKey: merchant.publicKey,
    publicKeyId,
    platformPublicKeyPem: platformPublic.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    requests,
    get certificates() {
      return certificates.map((c) => ({ serial: c.serial, pem: c.pem, privateKey: c.privateKey }));
    },
    get signerSerial() {
      return signer.serial;
    },
    /** The adapter configuration for this merchant; `publicKeyMode` adds the PUB_KEY_ID pair. */
    config(extra: Partial<ChannelAConfig> & { publicKeyMode?: boolean } = {}): ChannelAConfig {
      const { publicKeyMode, ...rest } = extra;
      return {
        mchId,
        appId,
        merchantSerialNo,
        merchantPrivateKey: merchantPem,
        apiV3Key,
        baseUrl,
        ...(publicKeyMode
          ? {
              platformPublicKeyId: publicKeyId,
              platformPublicKey: platformPublic.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
            }
          : {}),
        ...rest,
      };
    },
    /** The private key behind a certificate serial or the PUB_KEY_ID, for signing with another library. */
    platformPrivateKey(serial: string): KeyObject {
      if (serial === publicKeyId) return platformPublic.privateKey;
      const cert = certificates.find((c) => c.serial === serial);
      if (!cert) throw new Error(`simulator: no platform key ${serial}`);
      return cert.privateKey;
    },
    /** Sign with the platform public key (`PUB_KEY_ID_…`) or with the newest certificate. */
    signWith(mode: 'publicKey' | 'certificate') {
      const newest = certificates[certificates.length - 1] as PlatformCertificate;
      signer = mode === 'publicKey' ? { serial: publicKeyId, privateKey: platformPublic.privateKey } : newest;
    },
    /** Certificate rotation: a new certificate is published and signs from now on (`validity` to issue an expired one). */
    async rotate(validity?: { notBefore: Date; notAfter: Date }): Promise<string> {
      signer = await issueCertificate(validity);
      return signer.serial;
    },
    fail(next: Fault) {
      fault = next;
    },
    /** The payer pays: NOTPAY → SUCCESS with a transaction id. */
    pay(orderNo: string, payerTotal?: number) {
      const t = transactionOf(orderNo);
      Object.assign(t, {
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        transaction_id: `42000${randomBytes(8).readBigUInt64BE().toString().padStart(23, '0').slice(0, 23)}`,
        success_time: beijing(now()),
        amount: { ...t.amount, payer_total: payerTotal ?? t.amount.total, payer_currency: t.amount.currency },
      });
    },
    /** The channel finishes a refund: PROCESSING → SUCCESS, CLOSED or ABNORMAL. */
    settleRefund(refundNo: string, status: 'SUCCESS' | 'CLOSED' | 'ABNORMAL') {
      const r = refundOf(refundNo);
      r.status = status;
      if (status === 'SUCCESS') r.success_time = beijing(now());
    },
    paymentCallback(orderNo: string, opts: { at?: Date; resource?: Partial<Transaction> } = {}) {
      const t = { ...publicTransaction(transactionOf(orderNo)), ...opts.resource };
      return callback('TRANSACTION.SUCCESS', 'transaction', t, opts.at);
    },
    refundCallback(refundNo: string, opts: { at?: Date } = {}) {
      const r = refundOf(refundNo);
      const { status, create_time: _created, amount, ...rest } = publicRefund(r);
      const resource = {
        mchid: mchId,
        ...rest,
        refund_status: status,
        amount: {
          total: amount.total,
          refund: amount.refund,
          payer_total: amount.payer_total,
          payer_refund: amount.payer_refund,
        },
      };
      return callback(`REFUND.${status}`, 'refund', resource, opts.at);
    },
    callback,
    /** POSTs a callback to `url` as the channel would; resolves with the answer's status and body. */
    fireCallback,
    /** The payer pays, and the callback goes to the order's notify_url (`fallbackUrl` when it had none). */
    async notifyPaid(orderNo: string, fallbackUrl: string): Promise<Delivery> {
      const t = transactionOf(orderNo);
      if (t.trade_state !== 'SUCCESS') sim.pay(orderNo);
      const url = t.notify_url || fallbackUrl;
      return { url, ...(await fireCallback(url, sim.paymentCallback(orderNo))) };
    },
    /** The refund succeeds, and its callback goes to the refund's notify_url (`fallbackUrl` when it had none). */
    async notifyRefund(refundNo: string, fallbackUrl: string): Promise<Delivery> {
      const r = refundOf(refundNo);
      if (r.status === 'PROCESSING') sim.settleRefund(refundNo, 'SUCCESS');
      const url = r.notify_url || fallbackUrl;
      return { url, ...(await fireCallback(url, sim.refundCallback(refundNo))) };
    },
    /** The key material as text, for `opts.keys` of a later start. */
    keys(): ChannelAKeys {
      return {
        apiV3Key,
        merchantSerialNo,
        merchantPrivateKeyPem: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        publicKeyId,
        platformPublicKeyPrivatePem: platformPublic.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        certificates: certificates.map((c) => ({
          certPem: c.pem,
          keyPem: c.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        })),
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

export type ChannelASimulator = Awaited<ReturnType<typeof startChannelASimulator>>;

/** Where a simulator delivered a callback, and what the receiver answered. */
export type Delivery = { url: string; status: number; body: string };

async function fireCallback(url: string, cb: { rawBody: Buffer; headers: Record<string, string> }) {
  const res = await fetch(url, { method: 'POST', headers: cb.headers, body: new Uint8Array(cb.rawBody) });
  return { status: res.status, body: await res.text() };
}

function pairOf(privatePem: string) {
  const privateKey = createPrivateKey(privatePem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

function publicTransaction(t: Transaction) {
  const { notify_url: _notify, ...rest } = t;
  return { ...rest, payer: { openid: 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o' }, bank_type: 'OTHERS', attach: '' };
}

function publicRefund(r: Refund) {
  const { notify_url: _notify, ...rest } = r;
  return rest;
}
