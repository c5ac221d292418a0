import type { EventDef } from '../../../platform/events/types.ts';
import type { Channel, RecipientType } from '../channels/types.ts';
import type { ChannelPolicy, Decision, DigestMode, ReasonCode } from './tables.ts';
import { nextDigestTime, quietWindowEnd } from './zoned-time.ts';

/**
 * The decision rules of spec §7.3 as one pure function per recipient: which channels are
 * candidates, and for each candidate exactly one decision with its reason code. The expansion
 * (expand-service.ts) loads the inputs in bulk and writes what this returns.
 */
export type ChannelRule = { enabled: boolean; locked: boolean };

export type RecipientSettings = {
  globalMuted: boolean;
  timezone: string;
  quietStart: string | null;
  quietEnd: string | null;
  digestMode: DigestMode;
  digestHour: number;
};

export const DEFAULT_SETTINGS: RecipientSettings = {
  globalMuted: false,
  timezone: 'Asia/Shanghai',
  quietStart: null,
  quietEnd: null,
  digestMode: 'realtime',
  digestHour: 9,
};

export type RecipientFacts = {
  key: string;
  type: RecipientType;
  /** external recipients: the one channel they are addressed on */
  externalChannel: Channel | null;
  /** found in the tenant and active (external: always) */
  found: boolean;
  email: string | null;
  phone: string | null;
  /** the recipient's switches that differ from the default (sparse) */
  preferences: ReadonlyMap<Channel, boolean>;
  settings: RecipientSettings;
  /** successful (or in-flight) deliveries of this event per channel inside the rate-limit window */
  recentDeliveries: ReadonlyMap<Channel, number>;
  /** channels on which this idempotency key was already dispatched to this recipient */
  duplicates: ReadonlySet<Channel>;
};

export type PairDecision = {
  channel: Channel;
  decision: Decision;
  reasonCode: ReasonCode | null;
  deliverAfter: Date | null;
  digestKey: string | null;
};

/** Catalog defaults with the scope's overrides applied (platform, then tenant: tenant wins). */
export function effectiveRules(def: EventDef, overrides: ReadonlyMap<Channel, ChannelRule>): Map<Channel, ChannelRule> {
  const rules = new Map<Channel, ChannelRule>();
  for (const channel of def.availableChannels) {
    rules.set(channel, overrides.get(channel) ?? { enabled: def.defaultChannels.includes(channel), locked: false });
  }
  return rules;
}

/**
 * Candidates: the enabled channels, adjusted by the dispatch's policy (`only` replaces them,
 * `enable` adds, `disable` removes; only channels the event makes available), plus channels the
 * recipient switched on, plus an external recipient's own channel.
 */
export function candidateChannels(
  def: EventDef,
  rules: ReadonlyMap<Channel, ChannelRule>,
  policy: ChannelPolicy | undefined,
  recipient: Pick<RecipientFacts, 'type' | 'externalChannel' | 'preferences'>,
): Channel[] {
  const available = (c: Channel) => rules.has(c);
  const allowed = (c: Channel) =>
    available(c) && (!policy?.only || policy.only.includes(c)) && !policy?.disable?.includes(c);
  const out = new Set<Channel>(
    policy?.only ? policy.only.filter(available) : [...rules].filter(([, r]) => r.enabled).map(([c]) => c),
  );
  for (const c of policy?.enable ?? []) if (available(c)) out.add(c);
  if (recipient.type === 'external' && recipient.externalChannel) out.add(recipient.externalChannel);
  else if (!def.mandatory) for (const [c, on] of recipient.preferences) if (on) out.add(c);
  return def.availableChannels.filter((c) => out.has(c) && allowed(c));
}

export function decideRecipient(input: {
  def: EventDef;
  rules: ReadonlyMap<Channel, ChannelRule>;
  policy: ChannelPolicy | undefined;
  /** channels switched on, with an adapter, and available for the tenant */
  usable: ReadonlySet<Channel>;
  recipient: RecipientFacts;
  now: Date;
}): PairDecision[] {
  const { def, rules, recipient: r, now } = input;
  const bypassesQuiet = def.severity === 'critical' || def.bypassQuietHours;
  const person = r.type !== 'external';
  const decide = (channel: Channel): PairDecision => {
    const out = (decision: Decision, reasonCode: ReasonCode | null, deliverAfter: Date | null = null) => ({
      channel,
      decision,
      reasonCode,
      deliverAfter,
      digestKey: null as string | null,
    });
    if (r.duplicates.has(channel)) return out('deduped', null);
    if (!person && channel !== r.externalChannel) return out('suppressed', 'preference_off');
    if (!input.usable.has(channel)) return out('suppressed', 'channel_unavailable');
    if (!r.found || (channel === 'email' && !r.email) || (channel === 'sms' && !r.phone))
      return out('suppressed', 'unreachable');
    if (person && !def.mandatory) {
      if (r.settings.globalMuted) return out('suppressed', 'globally_muted');
      if (r.preferences.get(channel) === false && !rules.get(channel)?.locked)
        return out('suppressed', 'preference_off');
    }
    if (def.rateLimit && (r.recentDeliveries.get(channel) ?? 0) >= def.rateLimit.max)
      return out('suppressed', 'rate_limited');
    const s = r.settings;
    if (person && channel === 'email' && s.digestMode !== 'realtime' && !def.mandatory && !bypassesQuiet) {
      const due = nextDigestTime(now, s.timezone, s.digestMode, s.digestHour);
      return { ...out('deferred', 'digest', due), digestKey: `${r.key}:${due.toISOString()}` };
    }
    if (person && !bypassesQuiet && s.quietStart && s.quietEnd) {
      const end = quietWindowEnd(now, s.timezone, s.quietStart, s.quietEnd);
      if (end) return out('deferred', 'quiet_hours', end);
    }
    return out('pending', null);
  };
  return candidateChannels(def, rules, input.policy, r).map(decide);
}
