import type { Channel } from '../channels/types.ts';
import type { EventDef, Severity, VariableType } from './types.ts';

type EventInput<V extends Record<string, VariableType>> = {
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

/** A catalog group: fills the defaults of each entry and keeps each entry's variable types. */
export function defineGroup<E extends Record<string, EventInput<Record<string, VariableType>>>>(
  group: string,
  events: E,
): { [K in keyof E]: Omit<EventDef, 'variables'> & { variables: E[K]['variables'] } } {
  const out: Record<string, EventDef> = {};
  for (const [key, e] of Object.entries(events)) {
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
  return out as { [K in keyof E]: Omit<EventDef, 'variables'> & { variables: E[K]['variables'] } };
}
