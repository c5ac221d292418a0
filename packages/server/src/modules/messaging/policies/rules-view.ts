import type { Db } from '../../../platform/db/client.ts';
import type { EventDef } from '../../../platform/events/types.ts';
import { CHANNELS, type Channel } from '../channels/types.ts';
import { type ChannelRule, effectiveRules } from '../dispatch/decide.ts';
import { loadOverrides, type ScopeRule } from '../dispatch/rules-repository.ts';

export type Level = 'platform' | 'tenant';
export type ScopeOverrides = Map<string, Map<Channel, ScopeRule>>;

export type ChannelView = {
  channel: Channel;
  /** the event can use this channel at all */
  available: boolean;
  /** the catalog default */
  default: boolean;
  /** after platform and tenant overrides */
  enabled: boolean;
  locked: boolean;
  source: 'default' | Level;
};

export const scopeOverrides = (db: Db, tenantId: number | null): Promise<ScopeOverrides> => loadOverrides(db, tenantId);

/** The effective rule of each channel of an event in a scope, with where it comes from. */
export function channelViews(def: EventDef, overrides: ScopeOverrides): ChannelView[] {
  const own = overrides.get(def.key) ?? new Map();
  const rules = effectiveRules(def, own);
  return CHANNELS.map((channel) => {
    const rule = rules.get(channel);
    return {
      channel,
      available: rule !== undefined,
      default: def.defaultChannels.includes(channel),
      enabled: rule?.enabled ?? false,
      locked: rule?.locked ?? false,
      source: own.get(channel)?.level ?? 'default',
    };
  });
}

/** What a scope's own row is compared with: the platform's rule for a tenant, the catalog for the platform. */
export function baselineRule(
  def: EventDef,
  channel: Channel,
  overrides: ScopeOverrides,
  tenantId: number | null,
): ChannelRule {
  const platform = overrides.get(def.key)?.get(channel)?.platform;
  if (tenantId !== null && platform) return platform;
  return { enabled: def.defaultChannels.includes(channel), locked: false };
}

export function eventView(def: EventDef, overrides: ScopeOverrides) {
  return {
    key: def.key,
    group: def.group,
    displayName: def.displayName,
    severity: def.severity,
    mandatory: def.mandatory,
    bypassQuietHours: def.bypassQuietHours,
    hidden: def.hidden,
    rateLimit: def.rateLimit,
    templates: def.templates,
    variables: Object.entries(def.variables).map(([name, type]) => ({
      name,
      type: type.replace('?', ''),
      required: !type.endsWith('?'),
    })),
    defaultChannels: [...def.defaultChannels],
    availableChannels: [...def.availableChannels],
    channels: channelViews(def, overrides),
  };
}
