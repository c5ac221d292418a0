import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { ChannelNotice } from '../channels/types.ts';
import type { OutboxService } from '../outbox/outbox-service.ts';
import type { OrderStatus, PaymentEventType, RefundStatus } from '../tables.ts';
import {
  findOrderByNo,
  findRefundByNo,
  moveOrder,
  moveRefund,
  type OrderRow,
  type RefundRow,
  releaseRefund,
} from './repository.ts';

/**
 * What applying a notice did: `applied` moved the state (and recorded its event), `pending`
 * (the channel has no final answer) changed at most unknown → paying/processing, `duplicate`
 * found the state already there, `conflict` found another final state, `amount_mismatch` and
 * `not_found` applied nothing.
 */
export type ApplyOutcome = 'applied' | 'pending' | 'duplicate' | 'conflict' | 'amount_mismatch' | 'not_found';
export type ApplyResult = { outcome: ApplyOutcome; status: string | null; eventId: string | null; message: string };

type Applied = ApplyResult & { eventRowId?: number };
type TenantScope = Pick<Scope, 'tenantId'> & { tenantId: number };

/** Webhook emission inside the transaction of the move (open-platform's emitWithin), when wired. */
export type EmitWithin = (tx: Db, input: { tenantId: number; type: string; data: unknown }) => Promise<unknown>;

// unsent too: a final answer (a close, or money the channel reports after all) is never lost
const OPEN_ORDER: OrderStatus[] = ['paying', 'unknown', 'unsent'];
const OPEN_REFUND: RefundStatus[] = ['processing', 'unknown'];

export function orderEventPayload(o: OrderRow) {
  return {
    orderId: o.id,
    orderNo: o.orderNo,
    amount: o.amount,
    currency: o.currency,
    channel: o.channel,
    channelTradeNo: o.channelTradeNo,
    status: o.status,
    paidAt: o.paidAt?.toISOString() ?? null,
  };
}

function refundEventPayload(r: RefundRow, o: OrderRow) {
  return {
    refundId: r.id,
    refundNo: r.refundNo,
    orderId: o.id,
    orderNo: o.orderNo,
    amount: r.amount,
    currency: r.currency,
    channel: o.channel,
    channelRefundNo: r.channelRefundNo,
    status: r.status,
    refundedAt: r.refundedAt?.toISOString() ?? null,
  };
}

/**
 * applyNotice (issue 16 items 2–5): the one path by which what a channel says — a verified
 * callback, a query answer, the sandbox's payment — moves an order or refund. The move is a
 * conditional update and its outbox event is written in the same transaction, so a repeat (or
 * 200 concurrent copies) changes the state once and records one event.
 */
export function createApplyService(deps: {
  db: Db;
  clock: () => Date;
  outbox: OutboxService;
  emitWithin?: () => EmitWithin | null;
}) {
  const { clock, outbox } = deps;

  async function record(
    tx: Db,
    scope: TenantScope,
    type: PaymentEventType,
    aggregate: { type: 'order' | 'refund'; id: number },
    payload: Record<string, unknown>,
  ) {
    const event = await outbox.record(tx, {
      type,
      tenantId: scope.tenantId,
      aggregateType: aggregate.type,
      aggregateId: aggregate.id,
      payload,
    });
    await deps.emitWithin?.()?.(tx, { tenantId: scope.tenantId, type, data: { eventId: event.eventId, ...payload } });
    return event;
  }

  async function applyPayment(tx: Db, scope: TenantScope, n: ChannelNotice): Promise<Applied> {
    const order = await findOrderByNo(tx, scope, n.orderNo);
    if (!order) return { outcome: 'not_found', status: null, eventId: null, message: `no order ${n.orderNo}` };
    const now = clock();
    if (n.outcome === 'pending') {
      const moved = await moveOrder(tx, scope, order.id, ['unknown'], { status: 'paying' }, now);
      return {
        outcome: 'pending',
        status: moved?.status ?? order.status,
        eventId: null,
        message: 'not final at the channel',
      };
    }
    if (n.outcome === 'succeeded' && (n.amount !== order.amount || n.currency !== order.currency))
      return {
        outcome: 'amount_mismatch',
        status: order.status,
        eventId: null,
        message: `the channel reports ${n.amount} ${n.currency}, the order is ${order.amount} ${order.currency}`,
      };
    const status = n.outcome;
    const moved = await moveOrder(
      tx,
      scope,
      order.id,
      OPEN_ORDER,
      {
        status,
        channelTradeNo: n.channelTradeNo ?? order.channelTradeNo,
        ...(status === 'succeeded' ? { paidAt: n.occurredAt ?? now } : {}),
        ...(status === 'closed' ? { closedAt: n.occurredAt ?? now } : {}),
      },
      now,
    );
    if (!moved) return settled(status, (await findOrderByNo(tx, scope, n.orderNo))?.status ?? null);
    const event = await record(
      tx,
      scope,
      `payment.${status}`,
      { type: 'order', id: moved.id },
      orderEventPayload(moved),
    );
    return { outcome: 'applied', status, eventId: event.eventId, eventRowId: event.id, message: `order ${status}` };
  }

  async function applyRefund(tx: Db, scope: TenantScope, n: ChannelNotice): Promise<Applied> {
    const order = await findOrderByNo(tx, scope, n.orderNo);
    const refund = n.refundNo ? await findRefundByNo(tx, scope, n.refundNo) : null;
    if (!order || !refund || refund.orderId !== order.id)
      return {
        outcome: 'not_found',
        status: null,
        eventId: null,
        message: `no refund ${n.refundNo} of order ${n.orderNo}`,
      };
    const now = clock();
    if (n.outcome === 'pending') {
      const moved = await moveRefund(tx, scope, refund.id, ['unknown'], { status: 'processing' }, now);
      return {
        outcome: 'pending',
        status: moved?.status ?? refund.status,
        eventId: null,
        message: 'not final at the channel',
      };
    }
    if (n.outcome === 'succeeded' && (n.amount !== refund.amount || n.currency !== refund.currency))
      return {
        outcome: 'amount_mismatch',
        status: refund.status,
        eventId: null,
        message: `the channel reports ${n.amount} ${n.currency}, the refund is ${refund.amount} ${refund.currency}`,
      };
    // a refund the channel closed did not arrive: failed
    const status: RefundStatus = n.outcome === 'succeeded' ? 'succeeded' : 'failed';
    const moved = await moveRefund(
      tx,
      scope,
      refund.id,
      OPEN_REFUND,
      {
        status,
        channelRefundNo: n.channelTradeNo ?? refund.channelRefundNo,
        ...(status === 'succeeded' ? { refundedAt: n.occurredAt ?? now } : {}),
      },
      now,
    );
    if (!moved) return settled(status, (await findRefundByNo(tx, scope, refund.refundNo))?.status ?? null);
    if (status === 'failed') await releaseRefund(tx, scope, order.id, refund.amount, now);
    const event = await record(
      tx,
      scope,
      `refund.${status}`,
      { type: 'refund', id: moved.id },
      refundEventPayload(moved, order),
    );
    return { outcome: 'applied', status, eventId: event.eventId, eventRowId: event.id, message: `refund ${status}` };
  }

  /** The move found no row to change: already in the target state (a repeat), or in another final state. */
  function settled(target: string, current: string | null): Applied {
    return current === target
      ? { outcome: 'duplicate', status: current, eventId: null, message: `already ${current}` }
      : { outcome: 'conflict', status: current, eventId: null, message: `already ${current}; ${target} not applied` };
  }

  return {
    async applyNotice(scope: TenantScope, notice: ChannelNotice): Promise<ApplyResult> {
      const applied = await deps.db.transaction((tx) =>
        notice.scene === 'payment' ? applyPayment(tx, scope, notice) : applyRefund(tx, scope, notice),
      );
      const { eventRowId, ...result } = applied;
      if (eventRowId !== undefined) await outbox.deliverAfterCommit([eventRowId]);
      return result;
    },
  };
}

export type ApplyService = ReturnType<typeof createApplyService>;
