import { AppError } from '../../../platform/http/errors.ts';
import type { AdapterRegistry } from '../adapters.ts';
import type { ChannelNotice } from '../channels/types.ts';
import type { ChannelConfigService } from '../configs/configs-service.ts';
import type { ChannelConfigRow } from '../configs/repository.ts';
import { paymentErrors } from '../errors.ts';
import type { ApplyResult, ApplyService } from './apply-service.ts';
import type { OrderRow, RefundRow } from './repository.ts';

/**
 * The calls the module makes to a channel about an existing order or refund, shared by the admin
 * routes and the compensation jobs: the query (an answer about another order is never applied),
 * and the close. Whatever an adapter throws becomes 502 `payment.channel_call_failed` with the
 * cause kept for the log; nothing was applied then.
 */

/** The adapter of a channel with one configuration, ready to call. */
export function channelOf(
  deps: { configs: ChannelConfigService; adapters: AdapterRegistry },
  config: ChannelConfigRow,
) {
  const entry = deps.adapters.get(config.channel);
  if (!entry) throw paymentErrors.channelUnavailable(config.channel);
  const notifyUrl = deps.configs.effectiveNotifyUrl(config);
  const adapterConfig = entry.toConfig({
    configId: config.id,
    tenantId: config.tenantId,
    fields: config.fields,
    secrets: deps.configs.openSecrets(config),
    notifyUrl,
  });
  return { adapter: entry.adapter, config: adapterConfig, notifyUrl };
}

export type Channel = ReturnType<typeof channelOf>;

/** A failed call as the reason stored on the order or refund (`lastError`): for people, bounded. */
const LAST_ERROR_MAX = 1000;
export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > LAST_ERROR_MAX ? `${text.slice(0, LAST_ERROR_MAX - 1)}…` : text;
}

export const channelCallFailed = (err: unknown) =>
  new AppError(502, 'payment.channel_call_failed', 'The channel could not be reached or answered something unusable', {
    internal: err instanceof Error ? err : String(err),
  });

async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw channelCallFailed(err);
  }
}

/** The channel's answer about `order` (null: it does not know it). */
export function queryOrderAt({ adapter, config }: Channel, order: OrderRow): Promise<ChannelNotice | null> {
  return calling(async () => {
    const notice = await adapter.queryOrder(config, order.orderNo, { createdAt: order.createdAt });
    if (notice && (notice.scene !== 'payment' || notice.orderNo !== order.orderNo))
      throw new Error(`the channel answered for ${notice.scene} ${notice.orderNo}, not order ${order.orderNo}`);
    return notice;
  });
}

/** The channel's answer about `refund` of `order` (null: it does not know it). */
export function queryRefundAt(
  { adapter, config }: Channel,
  order: OrderRow,
  refund: RefundRow,
): Promise<ChannelNotice | null> {
  return calling(async () => {
    const notice = await adapter.queryRefund(config, {
      orderNo: order.orderNo,
      refundNo: refund.refundNo,
      createdAt: refund.createdAt,
    });
    if (notice && (notice.scene !== 'refund' || notice.refundNo !== refund.refundNo))
      throw new Error(`the channel answered for ${notice.scene} ${notice.refundNo}, not refund ${refund.refundNo}`);
    return notice;
  });
}

/** A query's answer applied by the callback's path; `not_found` leaves the row as it is. */
export async function applyAnswer(
  apply: ApplyService,
  scope: { tenantId: number },
  notice: ChannelNotice | null,
  current: { status: string; kind: 'order' | 'refund' },
): Promise<ApplyResult> {
  if (notice) return apply.applyNotice(scope, notice);
  return {
    outcome: 'not_found',
    status: current.status,
    eventId: null,
    message: `the channel does not know the ${current.kind}`,
  };
}

/**
 * Closing an unpaid order (closeExpiredPaymentOrders, or an operator). The channel is asked
 * first: what it settled (paid above all) is applied and never closed over. Still open there →
 * closed at the channel, then here; unknown there (the creation never reached it) → closed here
 * only, as there is nothing to close at the channel. `closedBy` goes into the notice's payload.
 * An `unsent` order is known never to have reached it: callers close it with `closeHere`.
 */
export async function closeAtChannel(
  deps: { apply: ApplyService; clock: () => Date },
  channel: Channel,
  order: OrderRow,
  closedBy: Record<string, unknown>,
): Promise<ApplyResult> {
  const notice = await queryOrderAt(channel, order);
  if (notice && notice.outcome !== 'pending') return deps.apply.applyNotice({ tenantId: order.tenantId }, notice);
  if (notice) await calling(() => channel.adapter.closeOrder(channel.config, order.orderNo));
  return closeHere(deps, order, closedBy);
}

/** Closed here only (payment.closed), without a word to the channel. */
export function closeHere(
  deps: { apply: ApplyService; clock: () => Date },
  order: OrderRow,
  closedBy: Record<string, unknown>,
): Promise<ApplyResult> {
  return deps.apply.applyNotice(
    { tenantId: order.tenantId },
    {
      scene: 'payment',
      orderNo: order.orderNo,
      refundNo: null,
      channelTradeNo: order.channelTradeNo,
      amount: order.amount,
      currency: order.currency,
      outcome: 'closed',
      occurredAt: deps.clock(),
      merchantId: null,
      payload: closedBy,
    },
  );
}
