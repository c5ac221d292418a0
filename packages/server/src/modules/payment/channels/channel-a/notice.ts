import type { ChannelNotice, ChannelOutcome } from '../types.ts';

/**
 * channel_a's transaction and refund objects (the decrypted callback resource and the query
 * answers share their fields) as channel-neutral notices. Amounts are already in fen.
 */
type Transaction = {
  mchid?: string;
  appid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  success_time?: string;
  amount?: { total?: number; payer_total?: number; currency?: string };
};

type Refund = {
  mchid?: string;
  out_trade_no?: string;
  out_refund_no?: string;
  refund_id?: string;
  /** the callback says refund_status, the refund APIs say status */
  refund_status?: string;
  status?: string;
  success_time?: string;
  amount?: { refund?: number; currency?: string };
};

/** trade_state: REFUND means the payment succeeded and was later refunded (in part or whole). */
const TRADE_OUTCOME: Record<string, ChannelOutcome> = {
  SUCCESS: 'succeeded',
  REFUND: 'succeeded',
  NOTPAY: 'pending',
  USERPAYING: 'pending',
  CLOSED: 'closed',
  REVOKED: 'closed',
  PAYERROR: 'failed',
};

/** ABNORMAL (the payer's account cannot receive it) needs a person; to the module it is a failed refund. */
const REFUND_OUTCOME: Record<string, ChannelOutcome> = {
  SUCCESS: 'succeeded',
  PROCESSING: 'pending',
  CLOSED: 'closed',
  ABNORMAL: 'failed',
};

export function transactionNotice(raw: Record<string, unknown>): ChannelNotice {
  const t = raw as Transaction;
  const outcome = TRADE_OUTCOME[t.trade_state ?? ''];
  if (!outcome) throw new Error(`unknown trade_state ${String(t.trade_state)}`);
  return {
    scene: 'payment',
    orderNo: requiredText(t.out_trade_no, 'out_trade_no'),
    refundNo: null,
    channelTradeNo: t.transaction_id ?? null,
    // A success must state its amount (the module compares it with the order's); an unpaid order's
    // query answer may lack it, and must still be usable to close the order.
    amount: outcome === 'succeeded' || t.amount?.total !== undefined ? fen(t.amount?.total, 'amount.total') : 0,
    currency: t.amount?.currency ?? 'CNY',
    outcome,
    occurredAt: time(t.success_time),
    merchantId: t.mchid ?? null,
    payload: raw,
  };
}

export function refundNotice(raw: Record<string, unknown>): ChannelNotice {
  const r = raw as Refund;
  const state = r.refund_status ?? r.status;
  const outcome = REFUND_OUTCOME[state ?? ''];
  if (!outcome) throw new Error(`unknown refund status ${String(state)}`);
  return {
    scene: 'refund',
    orderNo: requiredText(r.out_trade_no, 'out_trade_no'),
    refundNo: requiredText(r.out_refund_no, 'out_refund_no'),
    channelTradeNo: r.refund_id ?? null,
    amount: fen(r.amount?.refund, 'amount.refund'),
    currency: r.amount?.currency ?? 'CNY',
    outcome,
    occurredAt: time(r.success_time),
    merchantId: r.mchid ?? null,
    payload: raw,
  };
}

function requiredText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${name} missing`);
  return value;
}

function fen(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} is not an amount in fen`);
  return value;
}

/** RFC 3339 with an offset (`2018-06-08T10:34:56+08:00`); absent until the payment or refund succeeds. */
function time(value: string | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
