import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { WebhookEventDef } from '../../../platform/events/types.ts';
import { createDeliverer } from './deliver.ts';
import { createDeliveryService } from './deliveries-service.ts';
import { createEmitter } from './emit.ts';
import { createEventRegistry } from './events.ts';
import { webhookJobs } from './jobs.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { createSubscriptionService } from './subscriptions-service.ts';
import { openWebhookSubscriptions } from './tables.ts';
import type { EmitInput, WebhookDeps } from './types.ts';

export type { EmitInput, EmitResult, WebhookDeps } from './types.ts';

/**
 * Open-platform webhooks (spec §4.5 last paragraph, §5.7, §6.3; docs/webhooks.md): subscriptions
 * per application and event, signed deliveries through the egress guard, retries with backoff,
 * auto-disable after a failure streak, the delivery log and redelivery.
 */
export function createWebhooks(ctx: AppContext, deps: WebhookDeps, declared: readonly WebhookEventDef[]) {
  const events = createEventRegistry(declared);
  const deliverer = createDeliverer(ctx, deps);
  const jobs = ctx.jobs.register(webhookJobs, () => ({ ctx, deliverer }));
  const emitWithin = createEmitter(ctx, events, jobs.wake);
  const subs = createSubscriptionService(ctx, events);
  const deliveries = createDeliveryService(ctx, { deliverer, subs });

  return {
    /** what other modules use: payments and the drive emit the events they declare */
    api: {
      /** inside the caller's transaction: nothing is sent if it rolls back */
      emitWithin,
      /** in a transaction of its own */
      emit: (input: EmitInput) => ctx.db.transaction((tx) => emitWithin(tx, input)),
    },
    /** an application's subscriptions, deliveries and attempts go with it, in the deleting transaction */
    deleteForApp: async (tx: Db, appId: number) => {
      await tx.delete(openWebhookSubscriptions).where(eq(openWebhookSubscriptions.appId, appId));
    },
    register(app: FastifyInstance) {
      subscriptionRoutes(app, { subs, deliveries, events });
      deliveryRoutes(app, deliveries);
    },
  };
}

export type WebhooksApi = ReturnType<typeof createWebhooks>['api'];
