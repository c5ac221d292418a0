import type { ChannelNotice, ChannelOutcome } from '../types.ts';
import { checkSignerCert, type SignerCertCache } from './certificates.ts';
import type { ChannelCConfig } from './config.ts';
import type { Fields } from './fields.ts';
import { verifyFields } from './signature.ts';

/**
 * What callbacks and synchronous answers share: the 5.1.0 / signMethod=01 signature by the
 * certificate carried in the message, and the meaning of the fields.
 */
export const VERSION = '5.1.0';
export const SIGN_METHOD_RSA_SHA256 = '01';

export type Checked = { ok: true; fields: Fields } | { ok: false; reason: string };

export function checkSignedMessage(config: ChannelCConfig, fields: Fields, now: Date, cache: SignerCertCache): Checked {
  if (fields.version !== VERSION)
    return { ok: false, reason: `version ${fields.version ?? '(none)'} is not ${VERSION}` };
  if (fields.signMethod !== SIGN_METHOD_RSA_SHA256) {
    return { ok: false, reason: `signMethod ${fields.signMethod ?? '(none)'} is not ${SIGN_METHOD_RSA_SHA256}` };
  }
  if (!fields.signature) return { ok: false, reason: 'signature: the message has no signature' };
  if (!fields.signPubKeyCert) return { ok: false, reason: 'certificate: the message has no signPubKeyCert' };
  const cert = checkSignerCert(config, fields.signPubKeyCert, now, cache);
  if (!cert.ok) return cert;
  if (!verifyFields(fields, cert.publicKey)) return { ok: false, reason: 'signature: does not match the message' };
  return { ok: true, fields };
}

/** 00 success; A6 "success with defects" is a success too (funds moved) per UnionPay's code table. */
const SUCCESS = new Set(['00', 'A6']);
/** 03/04/05: the outcome is not known yet — query again later. */
const PROCESSING = new Set(['03', '04', '05']);

export function outcomeOf(code: string | undefined): ChannelOutcome {
  if (code && SUCCESS.has(code)) return 'succeeded';
  if (code && PROCESSING.has(code)) return 'pending';
  return 'failed';
}

export const TXN_CONSUME = '01';
export const TXN_REFUND = '04';

const CURRENCIES: Record<string, string> = { '156': 'CNY' };
export const CNY_CODE = '156';

/** txnTime is Beijing time (UTC+8), yyyyMMddHHmmss. */
export function formatTxnTime(at: Date): string {
  return new Date(at.getTime() + 8 * 3_600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function parseTxnTime(text: string | undefined): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text ?? '');
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const at = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s) - 8 * 3_600_000);
  return Number.isNaN(at.getTime()) ? null : at;
}

/** A payment (txnType 01) or refund (txnType 04) message as a notice; a reason when unusable. */
export function toNotice(
  fields: Fields,
  opts: { outcome: ChannelOutcome; orderNo?: string },
): { ok: true; notice: ChannelNotice } | { ok: false; reason: string } {
  const scene = fields.txnType === TXN_CONSUME ? 'payment' : fields.txnType === TXN_REFUND ? 'refund' : null;
  if (!scene)
    return { ok: false, reason: `txnType ${fields.txnType ?? '(none)'} is neither consume (01) nor refund (04)` };
  if (!fields.orderId) return { ok: false, reason: 'orderId is missing' };
  if (!/^\d{1,12}$/.test(fields.txnAmt ?? '')) return { ok: false, reason: 'txnAmt is not an amount in fen' };
  const code = fields.currencyCode ?? CNY_CODE;
  // A refund's own orderId is our refund number; our order number travels in reqReserved (createRefund).
  const orderNo = scene === 'payment' ? fields.orderId : (opts.orderNo ?? fields.reqReserved ?? '');
  const { signature: _signature, signPubKeyCert: _cert, ...payload } = fields;
  return {
    ok: true,
    notice: {
      scene,
      orderNo,
      refundNo: scene === 'refund' ? fields.orderId : null,
      channelTradeNo: fields.queryId || null,
      amount: Number(fields.txnAmt),
      currency: CURRENCIES[code] ?? code,
      outcome: opts.outcome,
      occurredAt: parseTxnTime(fields.txnTime),
      merchantId: fields.merId ?? null,
      payload,
    },
  };
}
