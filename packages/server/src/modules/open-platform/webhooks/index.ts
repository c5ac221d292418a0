import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import type { WebhookEventDef } from '../../../platform/events/types.ts';
import { createDeliveryService } from './deliveries-service.ts';
import { createEmitService } from './emit-service.ts';
import { createEventRegistry } from './events.ts';
import { webhookJobs } from './jobs.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { subscriptionRoutes } from './routes/subscriptions.ts';
import { createScopedView } from './scoped-view.ts';
import { createSenderService } from './sender-service.ts';
import { createSubscriptionService } from './subscriptions-service.ts';
import type { WebhookDeps } from './types.ts';

export type { ScopedWebhookView } from './scoped-view.ts';
export type { EmitInput, EmitResult, WebhookDeps } from './types.ts';

/**
 * Open-platform webhooks (spec §4.5 last paragraph, §5.7, §6.3; docs/webhooks.md): subscriptions
 * per application and event, signed deliveries through the egress guard, retries with backoff,
 * auto-disable after a failure streak, the delivery log and redelivery.
 */
export function createWebhooks(ctx: AppContext, deps: WebhookDeps, declared: readonly WebhookEventDef[]) {
  const events = createEventRegistry(declared);
  const sender = createSenderService(ctx, deps);
  const subs = createSubscriptionService(ctx, events);
  const deliveries = createDeliveryService(ctx, { sender, subs });
  const jobs = ctx.jobs.register(webhookJobs, () => ({ sender, deliveries }));
  const emitter = createEmitService(ctx, events, jobs.wake);

  return {
    /** what other modules use: payments and the drive emit the events they declare */
    api: emitter,
    /** a module's own subscriptions and deliveries, limited to its event prefixes (the payment center's view) */
    scopedView: (prefixes: string[]) => createScopedView({ subs, deliveries }, prefixes),
    deleteForApp: subs.deleteForApp,
    register(app: FastifyInstance) {
      subscriptionRoutes(app, { subs, deliveries, events });
      deliveryRoutes(app, deliveries);
    },
  };
}

export type WebhooksApi = ReturnType<typeof createWebhooks>['api'];
