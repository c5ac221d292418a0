import type { WebhookEventDef } from '../../../platform/events/types.ts';

/**
 * The webhook event catalog: the event types the modules declare in their events.ts (payments
 * their payment.* and refund.* events, the drive drive.node.*, drive.share.*,
 * drive.collect.received — spec §6.1, §6.3), handed over by app.ts. Subscriptions name
 * registered types, a `prefix.*` pattern, or `*` for all.
 */

/** The event the test route sends; it is never emitted to subscriptions. */
export const TEST_EVENT = 'webhook.test';

const TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const PATTERN = /^([a-z][a-z0-9_]*\.)+\*$/;

export type WebhookEventRegistry = ReturnType<typeof createEventRegistry>;

export function createEventRegistry(declared: readonly WebhookEventDef[]) {
  const events = new Map<string, WebhookEventDef>();

  function register(def: WebhookEventDef): void {
    if (!TYPE.test(def.type)) throw new Error(`webhook event "${def.type}": a type is dotted lower-case words`);
    if (events.has(def.type)) throw new Error(`webhook event "${def.type}" is registered twice`);
    events.set(def.type, { type: def.type, description: def.description });
  }

  register({
    type: TEST_EVENT,
    description: 'Sent by "send test event" to check a receiver; data holds a message and the subscription id',
  });
  for (const def of declared) register(def);

  return {
    has: (type: string) => events.has(type),
    all: (): WebhookEventDef[] => [...events.values()].sort((a, b) => a.type.localeCompare(b.type)),
    /** Why a subscription's entry is not acceptable, or null. */
    problem(entry: string): string | null {
      if (entry === '*' || events.has(entry)) return null;
      if (PATTERN.test(entry)) {
        const prefix = entry.slice(0, -1);
        return [...events.keys()].some((t) => t.startsWith(prefix)) ? null : `no registered event matches ${entry}`;
      }
      return 'is not a registered event type (GET /api/open-platform/webhook-events)';
    },
  };
}

/** Every subscription entry that selects `type`: `*`, each `prefix.*` above it, and the type itself. */
export function entriesMatching(type: string): string[] {
  const parts = type.split('.');
  const out = ['*'];
  for (let i = 1; i < parts.length; i++) out.push(`${parts.slice(0, i).join('.')}.*`);
  out.push(type);
  return out;
}
