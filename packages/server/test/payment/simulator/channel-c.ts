import { createHash, createSign, createVerify, type KeyObject, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelCConfig } from '../../../src/modules/payment/channels/channel-c/config.ts';
import type { Delivery } from './channel-a.ts';
import { createRootCa, type Issued, issueCertificate, loadIssued, savedIssued } from './pki.ts';

/**
 * channel_c (UnionPay full-channel 5.1.0) as seen from a merchant: a CA chain with a UnionPay
 * signing certificate, the gateway's frontTransReq / backTransReq / queryTrans, back-end notices.
 *
 * The message signing is written here again on purpose, not imported from the adapter, so the
 * simulator and the adapter cannot share a misunderstanding; both are checked against openssl.
 */
export type Identity = { certPem: string; privateKey: KeyObject };
type Fields = Record<string, string>;

type Txn = {
  orderId: string;
  txnTime: string;
  txnAmt: string;
  backUrl: string;
  queryId: string;
  /** UnionPay's code for the transaction's own result: 00 done, 05 in progress */
  respCode: '00' | '05';
};
type Refund = Txn & { origQryId: string; reqReserved?: string };

/** How the gateway answers back-end calls: normally, or broken in one way for the error tests. */
export type AnswerMode = 'normal' | 'garbage' | 'http-500' | 'bad-signature' | 'unsigned';

export const SIM_MER_ID = '777290058110048';

function signingText(fields: Fields): string {
  const keys = Object.keys(fields).filter((k) => k !== 'signature' && fields[k] !== '');
  keys.sort();
  return keys.map((k) => `${k}=${fields[k]}`).join('&');
}

/** signMethod=01: SHA256withRSA over the hex SHA-256 of the sorted string. */
export function simSign(fields: Fields, by: Identity): Fields {
  const all = { ...fields, signPubKeyCert: by.certPem };
  const hex = createHash('sha256').update(signingText(all)).digest('hex');
  return { ...all, signature: createSign('RSA-SHA256').update(hex).sign(by.privateKey, 'base64') };
}

function simVerify(fields: Fields, certPem: string): boolean {
  const hex = createHash('sha256').update(signingText(fields)).digest('hex');
  return createVerify('RSA-SHA256')
    .update(hex)
    .verify(certPem, fields.signature ?? '', 'base64');
}

/** Beijing time, yyyyMMddHHmmss. */
const beijing = (at: Date) => new Date(at.getTime() + 8 * 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14);

type Saved = { certPem: string; keyPem: string };
/** The simulator's key material as text, to start it again with the same chain and merchant certificate. */
export type ChannelCKeys = { root: Saved; middle: Saved; signer: Saved; merchant: Saved };

export type ChannelCSimOptions = {
  signerCn?: string;
  /** loopback port to listen on; a free one when absent */
  port?: number;
  /** key material of an earlier run (`keys()`); a new chain when absent */
  keys?: ChannelCKeys;
};

async function issueChain(signerCn: string) {
  const root = await createRootCa({ subject: 'CN=Simulated UnionPay Root,O=China UnionPay,C=CN' });
  const middle = await issueCertificate(root, { subject: 'CN=Simulated UnionPay OCA,O=China UnionPay,C=CN', ca: true });
  const signer = await issueCertificate(middle, {
    subject: `CN=041@Z12400000001@${signerCn}@00000001,OU=00000000,O=China UnionPay,C=CN`,
  });
  const merchant = await issueCertificate(middle, { subject: `CN=041@Z${SIM_MER_ID}@merchant@00000002,C=CN` });
  return { root, middle, signer, merchant };
}

async function loadChain(keys: ChannelCKeys) {
  const [root, middle, signer, merchant] = await Promise.all(
    [keys.root, keys.middle, keys.signer, keys.merchant].map(loadIssued),
  );
  return { root, middle, signer, merchant } as Record<keyof ChannelCKeys, Issued>;
}

export async function startChannelCSimulator(opts: ChannelCSimOptions = {}) {
  const signerCn = opts.signerCn ?? '中国银联股份有限公司';
  const { root, middle, signer, merchant } = opts.keys ? await loadChain(opts.keys) : await issueChain(signerCn);

  const orders = new Map<string, Txn>();
  const refunds = new Map<string, Refund>();
  /** every request the gateway received, for the tests' eyes */
  const received: { path: string; fields: Fields }[] = [];
  let answerMode: AnswerMode = 'normal';
  const newQueryId = () => `${beijing(new Date())}${String(randomInt(1e9)).padStart(10, '0')}`;

  /** A message signed by the simulated UnionPay (or by another identity, for the bad-certificate cases). */
  const signed = (fields: Fields, by: Identity = signer) => simSign(fields, by);

  function answer(res: ServerResponse, fields: Fields): void {
    if (answerMode === 'http-500') {
      res.writeHead(500).end('busy');
      return;
    }
    if (answerMode === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
      return;
    }
    let out = answerMode === 'unsigned' ? fields : signed(fields);
    if (answerMode === 'bad-signature') out = { ...out, respMsg: `${out.respMsg ?? ''}x` };
    const text = Object.entries(out)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    res.writeHead(200, { 'content-type': 'text/plain;charset=UTF-8' }).end(text);
  }

  const base = (f: Fields): Fields => ({
    version: '5.1.0',
    encoding: 'UTF-8',
    signMethod: '01',
    merId: f.merId ?? '',
    accessType: f.accessType ?? '0',
    bizType: f.bizType ?? '',
    txnType: f.txnType ?? '',
    txnSubType: f.txnSubType ?? '',
    orderId: f.orderId ?? '',
    txnTime: f.txnTime ?? '',
  });

  /** The browser's form post: the order exists at the gateway, waiting for the payer. */
  function front(f: Fields, res: ServerResponse): void {
    orders.set(f.orderId ?? '', {
      orderId: f.orderId ?? '',
      txnTime: f.txnTime ?? '',
      txnAmt: f.txnAmt ?? '',
      backUrl: f.backUrl ?? '',
      queryId: newQueryId(),
      respCode: '05',
    });
    res.writeHead(200, { 'content-type': 'text/html;charset=UTF-8' }).end('<html>simulated UnionPay checkout</html>');
  }

  /** A back-end call's answer fields; null for a call the simulator does not serve. */
  function backEnd(path: string, f: Fields): Fields | null {
    if (path === '/gateway/api/backTransReq.do' && f.txnType === '04') {
      const original = [...orders.values()].find((o) => o.queryId === f.origQryId);
      const refunded = [...refunds.values()]
        .filter((r) => r.origQryId === f.origQryId)
        .reduce((sum, r) => sum + Number(r.txnAmt), 0);
      if (original?.respCode !== '00') return { ...base(f), respCode: '35', respMsg: 'original not found' };
      if (refunds.has(f.orderId ?? '')) return { ...base(f), respCode: '12', respMsg: 'duplicate' };
      if (refunded + Number(f.txnAmt) > Number(original.txnAmt)) {
        return { ...base(f), respCode: '01', respMsg: 'refund exceeds the payment' };
      }
      const refund: Refund = {
        orderId: f.orderId ?? '',
        txnTime: f.txnTime ?? '',
        txnAmt: f.txnAmt ?? '',
        backUrl: f.backUrl ?? '',
        queryId: newQueryId(),
        respCode: '05',
        origQryId: f.origQryId ?? '',
        ...(f.reqReserved ? { reqReserved: f.reqReserved } : {}),
      };
      refunds.set(refund.orderId, refund);
      return {
        ...base(f),
        txnAmt: refund.txnAmt,
        queryId: refund.queryId,
        respCode: '00',
        respMsg: 'success',
      };
    }
    if (path === '/gateway/api/queryTrans.do') {
      const txn = orders.get(f.orderId ?? '') ?? refunds.get(f.orderId ?? '');
      if (!txn || txn.txnTime !== f.txnTime) return { ...base(f), respCode: '34', respMsg: 'no such transaction' };
      return {
        ...base(f),
        txnAmt: txn.txnAmt,
        currencyCode: '156',
        queryId: txn.queryId,
        respCode: '00',
        respMsg: 'success',
        origRespCode: txn.respCode,
        origRespMsg: txn.respCode === '00' ? 'success' : 'in progress',
      };
    }
    return null;
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const path = new URL(req.url ?? '/', 'http://sim').pathname;
      received.push({ path, fields });
      // the merchant's signature, checked with the merchant certificate the simulator issued
      if (fields.signMethod !== '01' || !simVerify(fields, merchant.certPem)) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('respCode=11&respMsg=signature invalid');
        return;
      }
      if (path === '/gateway/api/frontTransReq.do' && fields.txnType === '01') return front(fields, res);
      const out = backEnd(path, fields);
      if (out) answer(res, out);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  function paymentFields(o: Txn): Fields {
    return {
      version: '5.1.0',
      encoding: 'UTF-8',
      signMethod: '01',
      txnType: '01',
      txnSubType: '01',
      bizType: '000201',
      accessType: '0',
      merId: SIM_MER_ID,
      orderId: o.orderId,
      txnTime: o.txnTime,
      txnAmt: o.txnAmt,
      currencyCode: '156',
      queryId: o.queryId,
      respCode: '00',
      respMsg: 'success',
      settleAmt: o.txnAmt,
      settleCurrencyCode: '156',
      settleDate: o.txnTime.slice(4, 8),
      traceNo: String(randomInt(1e6)).padStart(6, '0'),
      traceTime: o.txnTime.slice(4),
      accNo: '6216***********0018',
      payType: '0001',
    };
  }

  function refundFields(r: Refund): Fields {
    return {
      version: '5.1.0',
      encoding: 'UTF-8',
      signMethod: '01',
      txnType: '04',
      txnSubType: '00',
      bizType: '000201',
      accessType: '0',
      merId: SIM_MER_ID,
      orderId: r.orderId,
      origQryId: r.origQryId,
      txnTime: r.txnTime,
      txnAmt: r.txnAmt,
      queryId: r.queryId,
      respCode: '00',
      respMsg: 'success',
      settleAmt: r.txnAmt,
      settleCurrencyCode: '156',
      ...(r.reqReserved ? { reqReserved: r.reqReserved } : {}),
    };
  }

  const must = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`simulator: no ${what}`);
    return v;
  };

  /** Posts a notice to `url` as UnionPay does; answers the status and body it got. */
  async function deliver(url: string, fields: Fields): Promise<{ status: number; body: string }> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, body: await res.text() };
  }

  const sim = {
    baseUrl,
    root,
    middle,
    signer,
    merchant,
    orders,
    refunds,
    received,
    setAnswerMode(mode: AnswerMode) {
      answerMode = mode;
    },
    /** A configuration of the adapter for this simulator. */
    config(overrides: Partial<ChannelCConfig> = {}): ChannelCConfig {
      return {
        merId: SIM_MER_ID,
        signCertPem: merchant.certPem,
        signKeyPem: merchant.keyPem,
        rootCertPem: root.certPem,
        middleCertPem: middle.certPem,
        signerCn,
        baseUrl,
        ...overrides,
      };
    },
    /** Registers an order as if the payer had opened the gateway page (without the browser post). */
    open(orderId: string, txnAmt: number, at = new Date()): Txn {
      const o: Txn = {
        orderId,
        txnTime: beijing(at),
        txnAmt: String(txnAmt),
        backUrl: '',
        queryId: newQueryId(),
        respCode: '05',
      };
      orders.set(orderId, o);
      return o;
    },
    /** The payer pays: the order succeeds; returns the payment notice's fields, signed. */
    pay(orderId: string, by: Identity = signer): Fields {
      const o = must(orders.get(orderId), `order ${orderId}`);
      o.respCode = '00';
      return signed(paymentFields(o), by);
    },
    /** The refund completes: returns the refund notice's fields, signed. */
    settleRefund(refundId: string, by: Identity = signer): Fields {
      const r = must(refunds.get(refundId), `refund ${refundId}`);
      r.respCode = '00';
      return signed(refundFields(r), by);
    },
    signed,
    /** The form body UnionPay posts to backUrl. */
    formBody: (fields: Fields) => new URLSearchParams(fields).toString(),
    deliver,
    /**
     * The payer pays, and the notice goes to the order's backUrl (`fallbackUrl` when it had none).
     * The order exists here once the payer's browser posted the checkout form (frontTransReq).
     */
    async notifyPaid(orderId: string, fallbackUrl: string): Promise<Delivery> {
      const o = must(orders.get(orderId), `order ${orderId} (the checkout form was not posted to the gateway)`);
      const url = o.backUrl || fallbackUrl;
      return { url, ...(await deliver(url, sim.pay(orderId))) };
    },
    /** The refund completes, and its notice goes to the refund's backUrl (`fallbackUrl` when it had none). */
    async notifyRefund(refundId: string, fallbackUrl: string): Promise<Delivery> {
      const r = must(refunds.get(refundId), `refund ${refundId}`);
      const url = r.backUrl || fallbackUrl;
      return { url, ...(await deliver(url, sim.settleRefund(refundId))) };
    },
    /** The key material as text, for `opts.keys` of a later start. */
    keys: (): ChannelCKeys => ({
      root: savedIssued(root),
      middle: savedIssued(middle),
      signer: savedIssued(signer),
      merchant: savedIssued(merchant),
    }),
    issueFrom: issueCertificate,
    createRootCa,
    /** Stops listening and drops open connections (a client's keep-alive pool would hold it open). */
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return sim;
}

export type ChannelCSimulator = Awaited<ReturnType<typeof startChannelCSimulator>>;
export type { Issued };
