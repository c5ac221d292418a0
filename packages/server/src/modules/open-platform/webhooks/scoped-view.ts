import type { Scope } from '../../../platform/auth/principal.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DeliveryService } from './deliveries-service.ts';
import { webhookErrors } from './errors.ts';
import {
  type SubscriptionCreateInput,
  type SubscriptionService,
  type SubscriptionUpdateInput,
  toSubscriptionView,
} from './subscriptions-service.ts';
import type { DeliveryStatus, SubscriptionStatus } from './tables.ts';

/**
 * A module's own view of webhooks (spec §4.5: /payment/webhooks takes only payment and refund
 * events; /open-platform/webhooks the whole catalog; both on the same tables). It holds the
 * subscriptions of no application — the module's own — whose events are all under `prefixes`,
 * and their deliveries; creating, changing, sending and retrying are open-platform's own code.
 * A row outside the view is answered as not found.
 */
export function createScopedView(deps: { subs: SubscriptionService; deliveries: DeliveryService }, prefixes: string[]) {
  const { subs, deliveries } = deps;
  const inView = (type: string) => prefixes.some((p) => type.startsWith(p));
  const patterns = prefixes.map((p) => `${p}*`).join(', ');

  /** An entry outside the prefixes (another module's event, `*`) is refused before the catalog check. */
  function checkEvents(events: string[] | undefined) {
    const outside = events?.filter((e) => !inView(e)) ?? [];
    if (outside.length)
      throw httpErrors.validation([
        { field: 'events', message: `${outside.join(', ')}: only ${patterns} events can be subscribed here` },
      ]);
  }

  async function ownSubscription(scope: Scope, id: number) {
    const row = await subs.findOrThrow(scope, id);
    if (row.appId !== null) throw webhookErrors.subscriptionNotFound();
    return row;
  }

  async function ownDelivery(scope: Scope, id: number) {
    const row = await deliveries.findOrThrow(scope, id);
    if (row.appId !== null || !inView(row.eventType)) throw webhookErrors.deliveryNotFound();
    return row;
  }

  return {
    list: (scope: Scope, q: PageRequest & { status?: SubscriptionStatus }) => subs.list(scope, { ...q, appless: true }),
    get: async (scope: Scope, id: number) => toSubscriptionView(await ownSubscription(scope, id)),
    create(scope: Scope, input: Omit<SubscriptionCreateInput, 'appId'>) {
      checkEvents(input.events);
      return subs.create(scope, { ...input, appId: null });
    },
    async update(scope: Scope, id: number, patch: SubscriptionUpdateInput) {
      await ownSubscription(scope, id);
      checkEvents(patch.events);
      return subs.update(scope, id, patch);
    },
    async remove(scope: Scope, id: number) {
      await ownSubscription(scope, id);
      await subs.remove(scope, id);
    },
    deliveries: (
      scope: Scope,
      q: PageRequest & { subscriptionId?: number; status?: DeliveryStatus; eventType?: string; eventId?: string },
    ) => deliveries.list(scope, { ...q, appless: true, eventPrefixes: prefixes }),
    async delivery(scope: Scope, id: number) {
      await ownDelivery(scope, id);
      return deliveries.get(scope, id);
    },
    async redeliver(scope: Scope, id: number) {
      await ownDelivery(scope, id);
      return deliveries.redeliver(scope, id);
    },
  };
}

export type ScopedWebhookView = ReturnType<typeof createScopedView>;
