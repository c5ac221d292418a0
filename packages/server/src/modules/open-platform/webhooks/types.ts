import type { Notifier } from '../../messaging/index.ts';

/** What webhooks need from other modules: telling an application's owner its subscription was disabled. */
export type WebhookDeps = { notifyWithin: Notifier['notifyWithin'] };

export type EmitInput = {
  /** the tenant the event happened in (null: platform); only that tenant's subscriptions receive it */
  tenantId: number | null;
  /** an event type a module declares in its events.ts */
  type: string;
  /** the event's own fields: the `data` of the body; must serialize to JSON */
  data: unknown;
  /** only subscriptions of these applications (the drive passes the apps granted the space) */
  appIds?: number[];
};

export type EmitResult = {
  /** the `id` of the body, the same for every subscription: receivers deduplicate on it */
  eventId: string;
  /** one delivery per receiving subscription; empty when none takes the event */
  deliveryIds: number[];
};
