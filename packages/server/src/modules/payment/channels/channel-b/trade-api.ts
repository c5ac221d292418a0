import {
  ChannelCallError,
  type ChannelNotice,
  type OrderForChannel,
  type PaymentStart,
  type RefundForChannel,
} from '../types.ts';
import { fenToYuan, yuanToFen } from './amount.ts';
import type { ChannelBConfig } from './config.ts';
import { callGateway, type GatewayResult } from './gateway.ts';
import type { ChannelBKeys } from './keys.ts';
import { formatChinaTime, parseChinaTime } from './signature.ts';
import { tradeOutcome } from './trade-status.ts';

/** The alipay.trade.* calls the payment module makes, each turned into channel-neutral terms. */
type Deps = Parameters<typeof callGateway>[0];
type Ctx = { deps: Deps; config: ChannelBConfig; keys: ChannelBKeys };

/** The trade does not exist at the channel: a precreated order nobody scanned yet, or a wrong number. */
const TRADE_NOT_EXIST = 'ACQ.TRADE_NOT_EXIST';

function unusable(method: string, r: GatewayResult): ChannelCallError {
  return new ChannelCallError(`${method}: ${r.code} ${r.sub_code ?? ''} ${r.sub_msg ?? r.msg ?? ''}`.trim(), {
    code: r.sub_code ?? r.code,
  });
}

function requireAmount(method: string, text: unknown): number {
  const fen = yuanToFen(typeof text === 'string' ? text : undefined);
  if (fen === null) throw new ChannelCallError(`${method}: amount ${String(text)} is not yuan`, { code: 'bad_answer' });
  return fen;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** alipay.trade.precreate: a QR code the payer scans; the trade exists at the channel once scanned. */
export async function precreate(c: Ctx, order: OrderForChannel): Promise<PaymentStart> {
  if (order.currency !== 'CNY') throw new ChannelCallError(`channel_b charges CNY only, not ${order.currency}`);
  const method = 'alipay.trade.precreate';
  const r = await callGateway(
    c.deps,
    c.config,
    c.keys,
    method,
    {
      out_trade_no: order.orderNo,
      total_amount: fenToYuan(order.amount),
      subject: order.subject,
      time_expire: formatChinaTime(order.expiresAt),
    },
    { notify_url: order.notifyUrl },
  );
  if (r.code !== '10000' || !str(r.qr_code)) throw unusable(method, r);
  return { payload: { qrCode: r.qr_code }, channelTradeNo: null };
}

export async function queryTrade(c: Ctx, orderNo: string): Promise<ChannelNotice | null> {
  const method = 'alipay.trade.query';
  const r = await callGateway(c.deps, c.config, c.keys, method, { out_trade_no: orderNo });
  if (r.code === '40004' && r.sub_code === TRADE_NOT_EXIST) return null;
  if (r.code !== '10000') throw unusable(method, r);
  const outcome = tradeOutcome(str(r.trade_status) ?? undefined);
  if (!outcome)
    throw new ChannelCallError(`${method}: unknown trade_status ${String(r.trade_status)}`, { code: 'bad_answer' });
  return {
    scene: 'payment',
    orderNo: str(r.out_trade_no) ?? orderNo,
    refundNo: null,
    channelTradeNo: str(r.trade_no),
    amount: requireAmount(method, r.total_amount),
    currency: 'CNY',
    outcome,
    occurredAt: parseChinaTime(str(r.send_pay_date) ?? undefined),
    merchantId: c.config.appId,
    payload: r,
  };
}

/** A trade that never reached the channel (not scanned) is as closed as it gets: nothing to close. */
export async function closeTrade(c: Ctx, orderNo: string): Promise<void> {
  const method = 'alipay.trade.close';
  const r = await callGateway(c.deps, c.config, c.keys, method, { out_trade_no: orderNo });
  if (r.code === '10000' || (r.code === '40004' && r.sub_code === TRADE_NOT_EXIST)) return;
  // ACQ.TRADE_STATUS_ERROR (already paid) and the rest: the caller queries and applies what it finds
  throw unusable(method, r);
}

/**
 * alipay.trade.refund is synchronous: fund_change=Y means this call moved the money; N or absent
 * (a repeat, or still processing) means ask fastpay.refund.query. A 40004 is a refusal (amount
 * too large, trade not refundable…): failed. System errors (20000, ACQ.SYSTEM_ERROR) throw, since
 * the refund may or may not have happened.
 */
export async function refundTrade(c: Ctx, refund: RefundForChannel): Promise<ChannelNotice> {
  const method = 'alipay.trade.refund';
  const r = await callGateway(c.deps, c.config, c.keys, method, {
    out_trade_no: refund.orderNo,
    refund_amount: fenToYuan(refund.amount),
    out_request_no: refund.refundNo,
    ...(refund.reason ? { refund_reason: refund.reason } : {}),
  });
  const base = {
    scene: 'refund' as const,
    orderNo: refund.orderNo,
    refundNo: refund.refundNo,
    channelTradeNo: str(r.trade_no) ?? refund.channelTradeNo,
    amount: refund.amount,
    currency: 'CNY',
    merchantId: c.config.appId,
    payload: r,
  };
  if (r.code === '10000') {
    const done = r.fund_change === 'Y';
    return {
      ...base,
      outcome: done ? 'succeeded' : 'pending',
      occurredAt: parseChinaTime(str(r.gmt_refund_pay) ?? undefined),
    };
  }
  if (r.code === '40004' && r.sub_code !== 'ACQ.SYSTEM_ERROR') return { ...base, outcome: 'failed', occurredAt: null };
  throw unusable(method, r);
}

/**
 * alipay.trade.fastpay.refund.query: data with refund_status REFUND_SUCCESS (or, for older
 * trades, absent) is a refund done; no refund data means the channel has no such refund.
 */
export async function queryRefund(c: Ctx, q: { orderNo: string; refundNo: string }): Promise<ChannelNotice | null> {
  const method = 'alipay.trade.fastpay.refund.query';
  const r = await callGateway(c.deps, c.config, c.keys, method, {
    out_trade_no: q.orderNo,
    out_request_no: q.refundNo,
    query_options: ['gmt_refund_pay'],
  });
  if (r.code === '40004' && r.sub_code === TRADE_NOT_EXIST) return null;
  if (r.code !== '10000') throw unusable(method, r);
  if (r.refund_amount === undefined) return null;
  const status = str(r.refund_status);
  return {
    scene: 'refund',
    orderNo: str(r.out_trade_no) ?? q.orderNo,
    refundNo: str(r.out_request_no) ?? q.refundNo,
    channelTradeNo: str(r.trade_no),
    amount: requireAmount(method, r.refund_amount),
    currency: 'CNY',
    outcome: status === null || status === 'REFUND_SUCCESS' ? 'succeeded' : 'pending',
    occurredAt: parseChinaTime(str(r.gmt_refund_pay) ?? undefined),
    merchantId: c.config.appId,
    payload: r,
  };
}
