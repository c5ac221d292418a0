import type { Logger } from 'pino';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { AdapterRegistry } from '../adapters.ts';
import { sandboxPaidNotice } from '../channels/sandbox/adapter.ts';
import type { ChannelCode } from '../channels/types.ts';
import type { ChannelConfigService } from '../configs/configs-service.ts';
import { paymentErrors } from '../errors.ts';
import type { OrderStatus } from '../tables.ts';
import type { ApplyResult, ApplyService } from './apply-service.ts';
import { applyAnswer, channelOf, closeAtChannel, closeHere, queryOrderAt } from './channel-calls.ts';
import { checkOrderNo } from './order-numbers.ts';
import { createOrderStart } from './order-start.ts';
import {
  findOrder,
  findOrderByNo,
  insertOrderOnce,
  type OrderRow,
  pageOrders,
  recordSandboxPayment,
} from './repository.ts';
import { toOrderView } from './views.ts';

export type OrderCreateInput = {
  orderNo: string;
  amount: number;
  currency?: string;
  channel: ChannelCode;
  configId?: number;
  subject: string;
  expiresInMinutes?: number;
};

const DEFAULT_EXPIRY_MINUTES = 30;

export type OrdersDeps = {
  db: Db;
  clock: () => Date;
  configs: ChannelConfigService;
  adapters: AdapterRegistry;
  apply: ApplyService;
  /** the app logger: failed channel calls are logged at warn with the order (refund) number */
  log: Pick<Logger, 'warn'>;
};

export function tenantOf(scope: Scope): { tenantId: number } {
  if (scope.tenantId === null) throw new AppError(403, 'payment.tenant_only', 'Payments belong to a tenant');
  return { tenantId: scope.tenantId };
}

/**
 * Orders (issue 16 item 2): created idempotently on the tenant's order number, started at the
 * channel after the row exists (order-start.ts: a crash leaves a `paying` order the query job
 * settles; one that never reached its channel is started again when posted again), and moved
 * only through applyNotice.
 */
export function createOrdersService(deps: OrdersDeps) {
  const { db, clock, configs } = deps;
  const starts = createOrderStart(deps);

  const sameOrder = (row: OrderRow, input: OrderCreateInput, configId: number) =>
    row.amount === input.amount &&
    row.currency === (input.currency ?? 'CNY') &&
    row.channel === input.channel &&
    row.subject === input.subject &&
    row.configId === configId;

  return {
    async create(scope: Scope, input: OrderCreateInput) {
      const tenant = tenantOf(scope);
      const config = await configs.forOrder(scope, input.channel, input.configId);
      if (!deps.adapters.get(input.channel)) throw paymentErrors.channelUnavailable(input.channel);
      checkOrderNo(input.channel, input.orderNo);
      const now = clock();
      const inserted = await insertOrderOnce(db, tenant, {
        orderNo: input.orderNo,
        amount: input.amount,
        currency: input.currency ?? 'CNY',
        channel: input.channel,
        configId: config.id,
        subject: input.subject,
        status: 'paying',
        expiresAt: new Date(now.getTime() + (input.expiresInMinutes ?? DEFAULT_EXPIRY_MINUTES) * 60_000),
        createdBy: userOf(scope)?.userId ?? null,
        createdAt: now,
        updatedAt: now,
      });
      if (!inserted) {
        // the same order number again: the same body answers the same order, another body is a conflict
        const existing = await findOrderByNo(db, tenant, input.orderNo);
        if (!existing || !sameOrder(existing, input, config.id)) throw paymentErrors.orderNoConflict();
        // one that never reached its channel is started again; any other is answered as it is
        if (existing.status !== 'unsent') return toOrderView(existing);
        return toOrderView(await starts.retry(tenant, existing, config));
      }
      return toOrderView(await starts.start(tenant, inserted, config));
    },

    async list(scope: Scope, q: PageRequest & { status?: OrderStatus; channel?: ChannelCode; orderNo?: string }) {
      const page = await pageOrders(db, scope, q);
      return { ...page, list: page.list.map(toOrderView) };
    },

    get: async (scope: Scope, id: number) => toOrderView(await findOwn(scope, id)),

    /**
     * The sandbox payer pays: the sandbox's notice through applyNotice, as a callback would. An
     * expired order cannot be paid, as no channel takes a payment past the expiry it was given.
     * `lostNotice`: paid at the "channel" only, its notice lost — left for a query to apply.
     */
    async sandboxPay(scope: Scope, id: number, opts: { lostNotice?: boolean } = {}) {
      const tenant = tenantOf(scope);
      const order = await findOwn(scope, id);
      if (order.channel !== 'sandbox') throw paymentErrors.notSandbox();
      if (order.status !== 'paying' && order.status !== 'unknown' && order.status !== 'succeeded')
        throw paymentErrors.orderNotPaying(order.status);
      const now = clock();
      if (order.status !== 'succeeded' && order.expiresAt.getTime() <= now.getTime())
        throw paymentErrors.orderExpired();
      const notice = sandboxPaidNotice(order, now);
      const result: ApplyResult =
        opts.lostNotice && order.status !== 'succeeded'
          ? {
              outcome: 'pending',
              status:
                (await recordSandboxPayment(db, tenant, order.id, notice.channelTradeNo ?? '', now))?.status ??
                order.status,
              eventId: null,
              message: 'paid at the sandbox channel; its notice was lost: a query applies it',
            }
          : await deps.apply.applyNotice(tenant, notice);
      return { order: toOrderView(await findOwn(scope, id)), result };
    },

    /** POST /orders/{id}/query: the channel's answer applied by the callback's path. */
    async query(scope: Scope, id: number) {
      const tenant = tenantOf(scope);
      const order = await findOwn(scope, id);
      // the channel never received it: there is nothing to ask, and a query must not pretend so
      if (order.status === 'unsent') throw paymentErrors.orderNotSent(order.lastError);
      const notice = await queryOrderAt(channelOf(deps, await configs.byId(scope, order.configId)), order);
      const result = await applyAnswer(deps.apply, tenant, notice, { ...order, kind: 'order' });
      return { order: toOrderView(await findOwn(scope, id)), result };
    },

    /**
     * POST /orders/{id}/close: an operator closes an unpaid order, as the expiry job does — the
     * channel asked first, so an order paid meanwhile is answered succeeded, never closed. A
     * closed order answers as it is (a retry is safe); a paid or failed one cannot be closed.
     */
    async close(scope: Scope, id: number) {
      tenantOf(scope);
      const order = await findOwn(scope, id);
      if (order.status === 'closed')
        return {
          order: toOrderView(order),
          result: {
            outcome: 'duplicate' as const,
            status: order.status,
            eventId: null,
            message: 'the order is already closed',
          },
        };
      if (order.status !== 'paying' && order.status !== 'unknown' && order.status !== 'unsent')
        throw paymentErrors.orderNotOpen(order.status);
      const closedBy = { closedBy: 'operator', userId: userOf(scope)?.userId ?? null };
      // an unsent order never reached its channel: nothing to ask or close there
      const result =
        order.status === 'unsent'
          ? await closeHere(deps, order, closedBy)
          : await closeAtChannel(deps, channelOf(deps, await configs.byId(scope, order.configId)), order, closedBy);
      return { order: toOrderView(await findOwn(scope, id)), result };
    },
  };

  async function findOwn(scope: Scope, id: number): Promise<OrderRow> {
    const row = await findOrder(db, scope, id);
    if (!row) throw paymentErrors.orderNotFound();
    return row;
  }
}

export type OrdersService = ReturnType<typeof createOrdersService>;
