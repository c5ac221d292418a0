import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { ScopedWebhookView } from '../open-platform/index.ts';
import { createAdapterRegistry } from './adapters.ts';
import { registerChannelAdapters } from './channel-wiring.ts';
import { createSandboxAdapter } from './channels/sandbox/adapter.ts';
import { createCompensationService } from './compensation/compensation-service.ts';
import { createChannelConfigService } from './configs/configs-service.ts';
import { channelConfigRoutes } from './configs/routes.ts';
import { paymentJobs } from './jobs.ts';
import { createNotifyService } from './notify/notify-service.ts';
import { notifyLogRoutes, notifyRoutes } from './notify/routes.ts';
import { createApplyService, type EmitWithin } from './orders/apply-service.ts';
import { createOrdersService } from './orders/orders-service.ts';
import { createRefundsService } from './orders/refunds-service.ts';
import { orderRoutes } from './orders/routes.ts';
import { createSandboxLookup } from './orders/sandbox-lookup.ts';
import { createOutboxService } from './outbox/outbox-service.ts';
import { outboxRoutes } from './outbox/routes.ts';
import { paymentWebhookRoutes } from './webhooks/routes.ts';
import { createPaymentWebhooks, PAYMENT_WEBHOOK_PREFIXES } from './webhooks/webhooks-service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    payment: PaymentModule;
  }
}

export { paymentEvents } from './events.ts';
export type { ApplyResult } from './orders/apply-service.ts';
export type { PaymentEvent, PaymentEventHandler } from './outbox/outbox-service.ts';

/**
 * Payments, part 1 (issue 16; spec §2.4, §3.1, §4.5, §6.1): channel configurations, orders and
 * refunds, the sandbox channel, one applyNotice path for every channel answer, the event outbox,
 * and the compensation jobs. Areas: `configs/`, `orders/`, `outbox/`, `compensation/`,
 * `channels/` (adapters).
 */
export function createPaymentModule(
  ctx: AppContext,
  deps: {
    /** open-platform's webhook emission inside a transaction; bound late (open-platform mounts after payment) */
    emitWebhookWithin?: () => EmitWithin | null;
    /** open-platform's view of a module's own webhooks limited to event prefixes; called at register */
    webhookView?: (prefixes: string[]) => ScopedWebhookView;
  } = {},
) {
  const { db, clock } = ctx;
  const adapters = createAdapterRegistry();
  adapters.add(createSandboxAdapter(createSandboxLookup(db), clock), (c) => ({ tenantId: c.tenantId }));
  registerChannelAdapters(adapters, { egress: ctx.egress, clock, cache: ctx.cache });
  const configs = createChannelConfigService(ctx, adapters);
  const outbox = createOutboxService({ db, clock, log: ctx.log });
  const apply = createApplyService({ db, clock, outbox, emitWithin: deps.emitWebhookWithin });
  const orderDeps = { db, clock, configs, adapters, apply, log: ctx.log };
  const orders = createOrdersService(orderDeps);
  const refunds = createRefundsService(orderDeps);
  const notify = createNotifyService({ db, clock, configs, adapters, apply, log: ctx.log });
  const compensation = createCompensationService(orderDeps);
  ctx.jobs.register(paymentJobs, () => ({
    dispatchPaymentEvents: outbox.dispatchDue,
    purgeNotifyLogs: notify.purgeExpired,
    reconcilePayments: compensation.reconcile,
    closeExpiredOrders: compensation.closeExpired,
  }));

  const mod = {
    /** in-process subscribers of payment events (idempotent on eventId) */
    subscribe: outbox.subscribe,
    /** the one path a channel's answer takes (callbacks, queries, the sandbox) */
    applyNotice: apply.applyNotice,
    /** the minute sweep, also callable directly (tests, operators) */
    dispatchPaymentEvents: outbox.dispatchDue,
    /** the daily retention sweep of the callback log, also callable directly */
    purgeNotifyLogs: notify.purgeExpired,
    /** paymentReconciliation's run, also callable directly */
    reconcilePayments: compensation.reconcile,
    /** closeExpiredPaymentOrders' run, also callable directly */
    closeExpiredOrders: compensation.closeExpired,
    /** the adapters of sandbox and channel_a/b/c (channel-wiring.ts) */
    adapters,
    async register(app: FastifyInstance) {
      app.decorate('payment', mod);
      await app.register(async (scope) => {
        channelConfigRoutes(scope, configs);
        orderRoutes(scope, orders, refunds);
        outboxRoutes(scope, outbox);
        notifyLogRoutes(scope, notify);
        if (deps.webhookView)
          paymentWebhookRoutes(scope, createPaymentWebhooks(deps.webhookView(PAYMENT_WEBHOOK_PREFIXES)));
      });
      await notifyRoutes(app, notify);
    },
  };
  return mod;
}

export type PaymentModule = ReturnType<typeof createPaymentModule>;
