import type { Channel, EventDef } from '../../../platform/events/types.ts';

// the channel enumeration lives with the event declarations that name channels
export { CHANNELS, type Channel } from '../../../platform/events/types.ts';

/** Who a notification is for (spec §2.3). External recipients have no preferences and get one channel. */
export type Recipient =
  | { type: 'user'; id: number }
  | { type: 'member'; id: number }
  | { type: 'external'; channel: Channel; address: string };

export type RecipientType = Recipient['type'];

/**
 * A recipient with the contact details a channel needs, resolved once per dispatch. `key` names it
 * in dispatch rows and counters: `u:<id>`, `m:<id>`, `e:<channel>:<address>`.
 */
export type Contact = {
  type: RecipientType;
  /** user or member id; null for external recipients */
  id: number | null;
  key: string;
  /** the recipient's tenant (null = platform user) */
  tenantId: number | null;
  name: string;
  email: string | null;
  phone: string | null;
  /** external recipients: the address on their channel (mailbox, phone, webhook URL, chat bot URL) */
  address: string | null;
};

/** Per-dispatch options a channel reads (spec §4.4 rule 6). */
export type ChannelOptions = {
  webhook?: { url: string; body?: unknown };
  /** template code overriding the event's (email, sms, inapp) */
  templates?: Partial<Record<Channel, string>>;
};

/** One recipient × channel pair the dispatcher decided to deliver. */
export type Delivery = {
  dispatchId: number;
  tenantId: number | null;
  event: EventDef;
  variables: Record<string, unknown>;
  contact: Contact;
  /**
   * deep link into the console as given: a console route (`/drive?space=1`) stays relative in the
   * in-app message; channels read outside the console (email, push, webhook, chat) send it
   * absolute through `ctx.links.resolve` (decision 0028)
   */
  link: string | null;
  channelOptions: ChannelOptions;
  /** absolute one-click unsubscribe URL (email only; null for mandatory events) */
  unsubscribeUrl: string | null;
};

export type DeliveryOutcome =
  /** accepted by the channel (provider id when it answers one) */
  | { status: 'sent'; providerMessageId?: string | null }
  /** the recipient has no address on this channel → suppressed / unreachable */
  | { status: 'unreachable'; detail: string }
  /** the channel raised an error → failed / delivery_error */
  | { status: 'failed'; error: string }
  /**
   * the channel could not be reached and took nothing (an SMTP server down): the row stays
   * pending and is tried again later, with backoff (deliver-service.ts), nothing lost
   */
  | { status: 'retry'; error: string };

/**
 * A channel adapter (spec §4.4 rule 5: a channel without one is `channel_unavailable`). Adapters
 * render with their own templates (falling back to the event's built-in title and content), send,
 * and write their own send logs.
 */
export type ChannelAdapter = {
  channel: Channel;
  /** configured and enabled for this tenant; false → suppressed / channel_unavailable */
  available(tenantId: number | null): Promise<boolean>;
  /**
   * Delivers a batch (one event, one tenant): one outcome per delivery, in order. One item's
   * failure is its outcome, never a throw; a throw fails the whole batch as delivery_error.
   */
  deliver(batch: Delivery[]): Promise<DeliveryOutcome[]>;
  /** how many deliveries one deliver() call takes; default 50 */
  batchSize?: number;
};
