/**
 * The shape of the events a module declares in its `events.ts` (docs/decisions/0008): the
 * notification catalog (spec §2.3, §6.2) and the open-platform webhook registry both read these
 * declarations, handed over by app.ts; the kernel holds only the types.
 */

/** Spec §2.3 channel enumeration. */
export const CHANNELS = ['inapp', 'email', 'sms', 'push', 'webhook', 'chat'] as const;
export type Channel = (typeof CHANNELS)[number];

export type Severity = 'normal' | 'important' | 'critical';

/** Declared variable types; a trailing `?` makes the variable optional. */
export type VariableType = 'string' | 'number' | 'boolean' | 'string?' | 'number?' | 'boolean?';

type TypeOf<T extends VariableType> = T extends 'string' | 'string?'
  ? string
  : T extends 'number' | 'number?'
    ? number
    : boolean;
type OptionalKeys<V> = { [K in keyof V]: V[K] extends `${string}?` ? K : never }[keyof V];
type RequiredKeys<V> = Exclude<keyof V, OptionalKeys<V>>;

/** The variables object a notify() call must pass for a declaration like `{ name: 'string', n: 'number?' }`. */
export type VariablesOf<V extends Record<string, VariableType>> = {
  [K in RequiredKeys<V>]: TypeOf<V[K]>;
} & { [K in OptionalKeys<V>]?: TypeOf<V[K]> };

/** One notification catalog entry (spec §2.3 event definition attributes). Fixed in code, never stored. */
export type EventDef = {
  key: string;
  group: string;
  displayName: string;
  severity: Severity;
  defaultChannels: readonly Channel[];
  /** channels a user or an override may switch on; defaults to defaultChannels */
  availableChannels: readonly Channel[];
  /** skips personal preferences (overrides still apply) */
  mandatory: boolean;
  /** delivered inside quiet hours (critical events always are) */
  bypassQuietHours: boolean;
  /** channel template codes; absent → the built-in title and content below */
  templates: Partial<Record<Channel, string>>;
  /** built-in title and content, `{{variable}}` placeholders, plain text */
  title: string;
  content: string;
  /** cap of successful deliveries per recipient × event × channel within windowSeconds */
  rateLimit: { max: number; windowSeconds: number } | null;
  /** not shown in the preference matrix */
  hidden: boolean;
  variables: Record<string, VariableType>;
};

/** An event type open-platform webhook subscriptions can name (spec §6.1, §6.3). */
export type WebhookEventDef = { type: string; description: string };

/** Everything one module declares: its notification events and the webhook events it emits. */
export type ModuleEvents = {
  notifications: Readonly<Record<string, EventDef>>;
  webhooks: readonly WebhookEventDef[];
};

/**
 * Every notification event by key, for the compiler: each module's `events.ts` adds its own
 * declarations to this interface (declaration merging), so notify() checks keys and variables
 * without the notification center importing any module.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules' declaration merging
export interface NotificationEvents {}

export type EventKey = keyof NotificationEvents & string;

/** The variables notify() must pass for an event. */
export type EventVariables<K extends EventKey> = NotificationEvents[K] extends {
  variables: infer V extends Record<string, VariableType>;
}
  ? VariablesOf<V>
  : never;
