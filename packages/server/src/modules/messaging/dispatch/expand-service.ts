import type { AppContext } from '../../../platform/context.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { EventDef } from '../../../platform/events/types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import type { Channel } from '../channels/types.ts';
import type { MessagingDeps } from '../deps.ts';
import type { MessagingSettings } from '../settings.ts';
import { decideRecipient, effectiveRules, type RecipientFacts } from './decide.ts';
import { earlierDispatches, insertDispatches, lockEventForDispatch, recentDeliveries } from './dispatch-repository.ts';
import { claimOutbox, markOutboxDone } from './outbox-repository.ts';
import { type ResolvedRecipient, resolveRecipients } from './recipients.ts';
import { loadOverrides, loadPreferences, loadSettings, settingsOf } from './rules-repository.ts';
import type { OutboxRow } from './tables.ts';

const CHUNK = 1000;
const LEASE_MS = 5 * 60_000;

/** Channels that can deliver for a tenant now: switched on, with an adapter, configured. */
export async function usableChannels(
  ctx: Pick<AppContext, 'settings'>,
  registry: ChannelRegistry,
  tenantId: number | null,
  channels: readonly Channel[],
): Promise<Set<Channel>> {
  const switches = await ctx.settings.effective<MessagingSettings>('messaging', tenantId);
  const usable = new Set<Channel>();
  for (const channel of channels) {
    const adapter = registry.get(channel);
    if (switches[`${channel}Enabled`] && adapter && (await adapter.available(tenantId))) usable.add(channel);
  }
  return usable;
}

/**
 * Claims an outbox row (pending, or processing with an expired lease), expands it into one
 * dispatch row per recipient × candidate channel, chunk by chunk, then marks it done.
 * Answers false when another worker has it or it is already done.
 */
export async function expandOutbox(
  ctx: Pick<AppContext, 'db' | 'clock' | 'log' | 'settings'>,
  deps: {
    catalog: Catalog;
    registry: ChannelRegistry;
    contacts: Pick<MessagingDeps, 'userContacts' | 'memberContacts'>;
  },
  outboxId: number,
): Promise<boolean> {
  const now = ctx.clock();
  const row = await claimOutbox(ctx.db, outboxId, now, new Date(now.getTime() + LEASE_MS));
  if (!row) return false;
  const def = deps.catalog.get(row.eventKey);
  if (!def) {
    // the catalog lost this key (a code change after the row was written): recorded, not retried
    ctx.log.error({ outboxId, eventKey: row.eventKey }, 'notifications: outbox row names an unknown event');
  }
  const resolved = def ? await resolveRecipients(deps.contacts, row.tenantId, row.input.recipients) : [];
  const usable = def
    ? await usableChannels(ctx, deps.registry, row.tenantId, def.availableChannels)
    : new Set<Channel>();
  if (def) {
    const rules = effectiveRules(def, (await loadOverrides(ctx.db, row.tenantId, def.key)).get(def.key) ?? new Map());
    // One transaction per chunk: a big audience never holds a connection or its locks for
    // long. A re-expansion after a crash rewrites nothing (unique pair index).
    for (let i = 0; i < resolved.length; i += CHUNK) {
      await ctx.db.transaction(async (tx) => {
        if (def.rateLimit || row.input.idempotencyKey) {
          await lockEventForDispatch(tx, row.tenantId, row.eventKey);
        }
        await writeDecisions(tx, { row, def, rules, usable, now }, resolved.slice(i, i + CHUNK));
      });
    }
  }
  await markOutboxDone(ctx.db, row.id, now);
  return true;
}

async function writeDecisions(
  tx: Db,
  c: { row: OutboxRow; def: EventDef; rules: ReturnType<typeof effectiveRules>; usable: Set<Channel>; now: Date },
  chunk: ResolvedRecipient[],
) {
  const { row, def, now } = c;
  const keys = chunk.map((r) => r.key);
  // one transaction, one query at a time
  const prefs = await loadPreferences(tx, row.tenantId, keys, def.key);
  const settings = await loadSettings(tx, row.tenantId, keys);
  const recent = def.rateLimit
    ? await recentDeliveries(tx, row, keys, new Date(now.getTime() - def.rateLimit.windowSeconds * 1000))
    : null;
  const duplicates = row.input.idempotencyKey ? await earlierDispatches(tx, row, keys, row.input.idempotencyKey) : null;
  const values = chunk.flatMap(({ recipient, key, contact }) => {
    const facts: RecipientFacts = {
      key,
      type: recipient.type,
      externalChannel: recipient.type === 'external' ? recipient.channel : null,
      found: contact !== null,
      email: contact?.email ?? null,
      phone: contact?.phone ?? null,
      preferences: prefs.get(key)?.get(def.key) ?? new Map(),
      settings: settingsOf(settings, key),
      recentDeliveries: recent?.get(key) ?? new Map(),
      duplicates: duplicates?.get(key) ?? new Set(),
    };
    const decisions = decideRecipient({
      def,
      rules: c.rules,
      policy: row.input.channels,
      usable: c.usable,
      recipient: facts,
      now,
    });
    return decisions.map((d) => ({
      channel: d.channel,
      recipient_type: recipient.type,
      recipient_id: recipient.type === 'external' ? null : recipient.id,
      recipient_key: key,
      contact: {
        name: contact?.name ?? '',
        email: contact?.email ?? null,
        phone: contact?.phone ?? null,
        address: contact?.address ?? null,
      },
      decision: d.decision,
      reason_code: d.reasonCode,
      digest_key: d.digestKey,
      deliver_after: d.deliverAfter?.toISOString() ?? null,
    }));
  });
  if (values.length) await insertDispatches(tx, row, now, values);
}
