import type { ChannelOutcome } from '../types.ts';

/**
 * trade_status of alipay.trade.* (notify and query). TRADE_FINISHED is a paid trade past its
 * refund period; TRADE_CLOSED is an unpaid trade closed, or a paid one refunded in full.
 */
const OUTCOMES: Record<string, ChannelOutcome> = {
  WAIT_BUYER_PAY: 'pending',
  TRADE_SUCCESS: 'succeeded',
  TRADE_FINISHED: 'succeeded',
  TRADE_CLOSED: 'closed',
};

export function tradeOutcome(status: string | undefined): ChannelOutcome | null {
  return status !== undefined && Object.hasOwn(OUTCOMES, status) ? (OUTCOMES[status] ?? null) : null;
}
