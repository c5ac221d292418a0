import type { Channel } from '../channels/types.ts';

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

/** One catalog entry (spec §2.3 event definition attributes). Fixed in code, never stored. */
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
