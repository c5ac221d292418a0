import type { Channel, EventDef, Severity, VariableType, WebhookEventDef } from './types.ts';

type NotificationInput<V extends Record<string, VariableType>> = {
  displayName: string;
  severity?: Severity;
  defaultChannels: readonly Channel[];
  availableChannels?: readonly Channel[];
  mandatory?: boolean;
  bypassQuietHours?: boolean;
  templates?: Partial<Record<Channel, string>>;
  title: string;
  content: string;
  rateLimit?: { max: number; windowSeconds: number };
  hidden?: boolean;
  variables: V;
};

type Declared<E extends Record<string, NotificationInput<Record<string, VariableType>>>> = {
  [K in keyof E]: Omit<EventDef, 'variables'> & { variables: E[K]['variables'] };
};

/**
 * A module's events (its `events.ts`): the notification events of one catalog group, with the
 * defaults of each entry filled and each entry's variable types kept, and the webhook events the
 * module emits.
 */
export function defineEvents<E extends Record<string, NotificationInput<Record<string, VariableType>>>>(
  group: string,
  notifications: E,
  webhooks: readonly WebhookEventDef[] = [],
): { notifications: Declared<E>; webhooks: readonly WebhookEventDef[] } {
  const out: Record<string, EventDef> = {};
  for (const [key, e] of Object.entries(notifications)) {
    out[key] = {
      key,
      group,
      displayName: e.displayName,
      severity: e.severity ?? 'normal',
      defaultChannels: e.defaultChannels,
      availableChannels: e.availableChannels ?? e.defaultChannels,
      mandatory: e.mandatory ?? false,
      bypassQuietHours: e.bypassQuietHours ?? false,
      templates: e.templates ?? {},
      title: e.title,
      content: e.content,
      rateLimit: e.rateLimit ?? null,
      hidden: e.hidden ?? false,
      variables: e.variables,
    };
  }
  return { notifications: out as Declared<E>, webhooks };
}

/** Channel sets most declarations use. */
export const IN = ['inapp'] as const;
export const IN_MAIL = ['inapp', 'email'] as const;
export const WIDE = ['inapp', 'email', 'sms', 'push', 'webhook', 'chat'] as const;
export const PERSONAL = ['inapp', 'email', 'sms', 'push'] as const;
export const HOUR = 3600;
