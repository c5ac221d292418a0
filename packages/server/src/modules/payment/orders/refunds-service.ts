import { randomBytes } from 'node:crypto';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { ChannelCallError, type ChannelNotice } from '../channels/types.ts';
import { paymentErrors } from '../errors.ts';
import type { RefundStatus } from '../tables.ts';
import { applyAnswer, channelOf, errorText, queryRefundAt } from './channel-calls.ts';
import { checkRefundNo } from './order-numbers.ts';
import { type OrdersDeps, tenantOf } from './orders-service.ts';
import {
  findOrder,
  findRefund,
  insertRefund,
  moveRefund,
  pageRefunds,
  type RefundRow,
  recordRefundError,
  reserveRefund,
} from './repository.ts';
import { toRefundView } from './views.ts';

export type RefundCreateInput = { refundNo?: string; amount: number; reason?: string };

/** The notice of a refund the channel never received: it failed, nothing moved there. */
const notMade = (orderNo: string, refund: RefundRow, reason: string): ChannelNotice => ({
  scene: 'refund',
  orderNo,
  refundNo: refund.refundNo,
  channelTradeNo: null,
  amount: refund.amount,
  currency: refund.currency,
  outcome: 'failed',
  occurredAt: null,
  merchantId: null,
  payload: { error: reason },
});

/**
 * Refunds (issue 16 item 2): partial refunds reserve their amount on the order by one
 * conditional update in the refund's transaction, so together they never exceed the order; the
 * channel is called after commit and its answer applied by applyNotice (a failed refund gives
 * its reservation back in the transaction of its move). A call that never reached the channel
 * fails the refund at once (502 payment.channel_unreachable naming the host); one without a
 * definite answer leaves it `unknown`; both keep the reason in `lastError` and are logged.
 */
export function createRefundsService(deps: OrdersDeps) {
  const { db, clock } = deps;

  async function findOwn(scope: Scope, id: number): Promise<RefundRow> {
    const row = await findRefund(db, scope, id);
    if (!row) throw paymentErrors.refundNotFound();
    return row;
  }

  return {
    async create(scope: Scope, orderId: number, input: RefundCreateInput) {
      const tenant = tenantOf(scope);
      const refundNo = input.refundNo ?? `R${Date.now().toString(36)}${randomBytes(4).toString('hex')}`.toUpperCase();
      const { order, refund } = await onUniqueViolation(
        db.transaction(async (tx) => {
          const order = await findOrder(tx, scope, orderId);
          if (!order) throw paymentErrors.orderNotFound();
          if (input.refundNo) checkRefundNo(order.channel, input.refundNo);
          if (order.status !== 'succeeded') throw paymentErrors.orderNotRefundable(order.status);
          const now = clock();
          const reserved = await reserveRefund(tx, scope, order.id, input.amount, now);
          if (!reserved) {
            const current = await findOrder(tx, scope, orderId);
            throw paymentErrors.refundExceedsAmount((current?.amount ?? 0) - (current?.refundedAmount ?? 0));
          }
          const refund = await insertRefund(tx, scope, {
            refundNo,
            orderId: order.id,
            amount: input.amount,
            currency: order.currency,
            status: 'processing',
            reason: input.reason ?? '',
            createdBy: userOf(scope)?.userId ?? null,
            createdAt: now,
            updatedAt: now,
          });
          return { order: reserved, refund };
        }),
        paymentErrors.refundNoTaken,
      );
      const { adapter, config, notifyUrl } = channelOf(deps, await deps.configs.byId(scope, order.configId));
      let notice: ChannelNotice;
      try {
        notice = await adapter.createRefund(config, {
          orderNo: order.orderNo,
          refundNo: refund.refundNo,
          channelTradeNo: order.channelTradeNo,
          amount: refund.amount,
          orderAmount: order.amount,
          currency: refund.currency,
          reason: refund.reason || null,
          notifyUrl,
          createdAt: refund.createdAt,
        });
      } catch (err) {
        const reason = errorText(err);
        const logged = { tenantId: tenant.tenantId, refundId: refund.id, refundNo: refund.refundNo, reason };
        if (err instanceof ChannelCallError && err.neverSent) {
          // certainly not made at the channel: failed (refund.failed), its amount released at once
          await recordRefundError(db, scope, refund.id, reason, clock());
          await deps.apply.applyNotice(tenant, notMade(order.orderNo, refund, reason));
          deps.log.warn(logged, 'refund never reached its channel: failed, its amount refundable again');
          const failed = await findOwn(scope, refund.id);
          throw paymentErrors.refundChannelUnreachable(failed, toRefundView(failed));
        }
        // not known whether the channel took it: unknown until a query says (never a guess)
        await moveRefund(db, scope, refund.id, ['processing'], { status: 'unknown', lastError: reason }, clock());
        deps.log.warn(logged, 'refund call got no definite answer: unknown until a query settles it');
        return toRefundView(await findOwn(scope, refund.id));
      }
      await deps.apply.applyNotice(tenant, notice);
      return toRefundView(await findOwn(scope, refund.id));
    },

    async list(scope: Scope, q: PageRequest & { status?: RefundStatus; orderId?: number; refundNo?: string }) {
      const page = await pageRefunds(db, scope, q);
      return { ...page, list: page.list.map(toRefundView) };
    },

    get: async (scope: Scope, id: number) => toRefundView(await findOwn(scope, id)),

    /** POST /refunds/{id}/query: the channel's answer applied by the callback's path. */
    async query(scope: Scope, id: number) {
      const tenant = tenantOf(scope);
      const refund = await findOwn(scope, id);
      const order = await findOrder(db, scope, refund.orderId);
      if (!order) throw paymentErrors.orderNotFound();
      const channel = channelOf(deps, await deps.configs.byId(scope, order.configId));
      const notice = await queryRefundAt(channel, order, refund);
      const result = await applyAnswer(deps.apply, tenant, notice, { ...refund, kind: 'refund' });
      return { refund: toRefundView(await findOwn(scope, id)), result };
    },
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
