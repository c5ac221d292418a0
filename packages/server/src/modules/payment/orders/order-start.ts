import { ChannelCallError, type ChannelNotice } from '../channels/types.ts';
import type { ChannelConfigRow } from '../configs/repository.ts';
import { paymentErrors } from '../errors.ts';
import { channelOf, errorText } from './channel-calls.ts';
import type { OrdersDeps } from './orders-service.ts';
import {
  claimUnsentOrder,
  findOrder,
  moveOrder,
  type OrderRow,
  recordOrderError,
  setPaymentStart,
} from './repository.ts';
import { toOrderView } from './views.ts';

type TenantScope = { tenantId: number };

/**
 * Starting an order at its channel, and starting again one that never reached it (issue 24;
 * docs/decisions/0021, amendment for issue 24). The row is `paying` before
 * the call, so a crash leaves an order the query job settles. What the call gives:
 *  - pay details: stored, any earlier reason cleared;
 *  - nothing sent (ChannelCallError.neverSent, or a configuration that cannot be used):
 *    `unsent` with the reason, answered 502 payment.channel_unreachable; the same POST retries;
 *  - sent, no definite answer: `unknown` with the reason, until a query says (never re-sent);
 *  - a refusal: `failed` through applyNotice (payment.failed), with the reason.
 * Every failure is logged at warn with the order number and the reason.
 */
export function createOrderStart(deps: OrdersDeps) {
  const { db, clock, log } = deps;

  const warn = (order: OrderRow, reason: string, what: string) =>
    log.warn(
      { tenantId: order.tenantId, orderId: order.id, orderNo: order.orderNo, channel: order.channel, reason },
      what,
    );

  async function unsent(scope: TenantScope, order: OrderRow, reason: string): Promise<OrderRow> {
    const row = await moveOrder(db, scope, order.id, ['paying'], { status: 'unsent', lastError: reason }, clock());
    // not paying any more: an operator or a notice moved it meanwhile, and that state stands
    if (!row) return (await findOrder(db, scope, order.id)) ?? order;
    warn(row, reason, 'payment order never reached its channel: unsent until it is posted again');
    throw paymentErrors.orderChannelUnreachable(row, toOrderView(row));
  }

  async function failed(scope: TenantScope, order: OrderRow, reason: string): Promise<OrderRow> {
    await recordOrderError(db, scope, order.id, reason, clock());
    const notice: ChannelNotice = {
      scene: 'payment',
      orderNo: order.orderNo,
      refundNo: null,
      channelTradeNo: null,
      amount: order.amount,
      currency: order.currency,
      outcome: 'failed',
      occurredAt: clock(),
      merchantId: null,
      payload: { error: reason },
    };
    await deps.apply.applyNotice(scope, notice);
    warn(order, reason, 'the channel refused the payment order');
    return (await findOrder(db, scope, order.id)) ?? order;
  }

  async function start(scope: TenantScope, order: OrderRow, config: ChannelConfigRow): Promise<OrderRow> {
    let channel: ReturnType<typeof channelOf>;
    try {
      channel = channelOf(deps, config);
    } catch (err) {
      return unsent(scope, order, `the channel configuration ${config.id} cannot be used: ${errorText(err)}`);
    }
    try {
      const begun = await channel.adapter.createPayment(channel.config, {
        orderNo: order.orderNo,
        amount: order.amount,
        currency: order.currency,
        subject: order.subject,
        expiresAt: order.expiresAt,
        notifyUrl: channel.notifyUrl,
        createdAt: order.createdAt,
      });
      const details = { payPayload: begun.payload, channelTradeNo: begun.channelTradeNo };
      return (await setPaymentStart(db, scope, order.id, details, clock())) ?? order;
    } catch (err) {
      const reason = errorText(err);
      if (!(err instanceof ChannelCallError)) return failed(scope, order, reason);
      if (err.neverSent) return unsent(scope, order, reason);
      // the channel may or may not hold the order: unknown until a query says
      const row = await moveOrder(db, scope, order.id, ['paying'], { status: 'unknown', lastError: reason }, clock());
      warn(order, reason, 'payment order creation got no definite answer: unknown until a query settles it');
      return row ?? order;
    }
  }

  /**
   * The same order posted again after it never reached its channel: claimed back to `paying` by
   * one conditional update (of concurrent retries on any instance, one calls the channel; the
   * others answer the order as it stands), then started as a new one. An expired one is not.
   */
  async function retry(scope: TenantScope, existing: OrderRow, config: ChannelConfigRow): Promise<OrderRow> {
    const claimed = await claimUnsentOrder(db, scope, existing.id, clock());
    if (claimed) return start(scope, claimed, config);
    const current = (await findOrder(db, scope, existing.id)) ?? existing;
    if (current.status !== 'unsent') return current;
    if (current.expiresAt.getTime() <= clock().getTime()) throw paymentErrors.orderExpired();
    // another retry took it and failed the same way in the meantime
    throw paymentErrors.orderChannelUnreachable(current, toOrderView(current));
  }

  return { start, retry };
}
