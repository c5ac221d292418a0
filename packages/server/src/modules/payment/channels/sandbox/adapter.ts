import type { ChannelAdapter, ChannelNotice, ChannelOutcome } from '../types.ts';

/**
 * The sandbox channel (issue 16 item 2): a channel without a merchant account, so a newcomer can
 * try the whole flow. Payments complete when someone calls POST /api/payment/orders/{id}/sandbox/pay
 * (the notice goes through the same applyNotice path as a verified callback; `?lostNotice=true`
 * pays at the "channel" only, as when a callback is lost); refunds succeed at once; queries
 * answer the local state. It has no callbacks: every one is refused.
 */
export type SandboxConfig = { tenantId: number | null };
type LocalOrder = {
  status: string;
  amount: number;
  currency: string;
  channelTradeNo: string | null;
  paidAt: Date | null;
};
type LocalRefund = {
  status: string;
  amount: number;
  currency: string;
  channelRefundNo: string | null;
  refundedAt: Date | null;
};
export type SandboxLookup = {
  order(tenantId: number | null, orderNo: string): Promise<LocalOrder | null>;
  refund(tenantId: number | null, refundNo: string): Promise<LocalRefund | null>;
};

const outcomeOf = (status: string): ChannelOutcome =>
  status === 'succeeded' || status === 'closed' || status === 'failed' ? status : 'pending';

/**
 * The sandbox "channel" keeps no state: the local row is its record. An open order with a
 * `paidAt` was paid at the sandbox channel whose notice was lost (sandbox pay with lostNotice),
 * so the channel answers succeeded and a query — or the query job — applies it.
 */
const orderOutcome = (order: LocalOrder): ChannelOutcome =>
  (order.status === 'paying' || order.status === 'unknown') && order.paidAt ? 'succeeded' : outcomeOf(order.status);

export const sandboxTradeNo = (orderNo: string) => `SBX-${orderNo}`;
export const sandboxRefundNo = (refundNo: string) => `SBXR-${refundNo}`;

/** The notice the sandbox "channel" sends when the payer pays. */
export function sandboxPaidNotice(
  order: { orderNo: string; amount: number; currency: string },
  now: Date,
): ChannelNotice {
  return {
    scene: 'payment',
    orderNo: order.orderNo,
    refundNo: null,
    channelTradeNo: sandboxTradeNo(order.orderNo),
    amount: order.amount,
    currency: order.currency,
    outcome: 'succeeded',
    occurredAt: now,
    merchantId: null,
    payload: { sandbox: true, orderNo: order.orderNo },
  };
}

export function createSandboxAdapter(local: SandboxLookup, clock: () => Date): ChannelAdapter<SandboxConfig> {
  return {
    code: 'sandbox',
    checkConfig: () => [],
    async verifyCallback() {
      return { valid: false, reason: 'the sandbox channel sends no callbacks' };
    },
    ack: {
      success: { status: 200, contentType: 'application/json', body: '{"code":"SUCCESS"}' },
      failure: (message) => ({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'FAIL', message }),
      }),
    },
    async createPayment(_config, order) {
      return {
        payload: { sandbox: true, orderNo: order.orderNo, hint: 'POST /api/payment/orders/{id}/sandbox/pay pays it' },
        channelTradeNo: sandboxTradeNo(order.orderNo),
      };
    },
    async queryOrder(config, orderNo) {
      const order = await local.order(config.tenantId, orderNo);
      if (!order) return null;
      return {
        scene: 'payment',
        orderNo,
        refundNo: null,
        channelTradeNo: order.channelTradeNo,
        amount: order.amount,
        currency: order.currency,
        outcome: orderOutcome(order),
        occurredAt: order.paidAt,
        merchantId: null,
        payload: { sandbox: true, status: order.status },
      };
    },
    async closeOrder() {},
    async createRefund(_config, refund) {
      return {
        scene: 'refund',
        orderNo: refund.orderNo,
        refundNo: refund.refundNo,
        channelTradeNo: sandboxRefundNo(refund.refundNo),
        amount: refund.amount,
        currency: refund.currency,
        outcome: 'succeeded',
        occurredAt: clock(),
        merchantId: null,
        payload: { sandbox: true, refundNo: refund.refundNo },
      };
    },
    async queryRefund(config, refund) {
      const row = await local.refund(config.tenantId, refund.refundNo);
      if (!row) return null;
      return {
        scene: 'refund',
        orderNo: refund.orderNo,
        refundNo: refund.refundNo,
        channelTradeNo: row.channelRefundNo,
        amount: row.amount,
        currency: row.currency,
        outcome: outcomeOf(row.status === 'processing' ? 'pending' : row.status),
        occurredAt: row.refundedAt,
        merchantId: null,
        payload: { sandbox: true, status: row.status },
      };
    },
  };
}
