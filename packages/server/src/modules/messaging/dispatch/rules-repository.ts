import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { ownOrPlatform, platformKey } from '../../../platform/db/tenant-key.ts';
import type { Channel } from '../channels/types.ts';
import { type ChannelRule, DEFAULT_SETTINGS, type RecipientSettings } from './decide.ts';
import { notificationEventOverrides, notificationPreferences, notificationRecipientSettings } from './tables.ts';

type TenantId = number | null;
type TenantScope = { tenantId: TenantId };
type Owner = { tenantId: TenantId; recipientKey: string };

/** The rule that applies in a scope, where it comes from, and the platform's rule under it. */
export type ScopeRule = ChannelRule & { level: 'platform' | 'tenant'; platform: ChannelRule | null };

/** eventKey → channel → rule: platform overrides, then the tenant's on top (spec §2.3: tenant wins). */
export async function loadOverrides(db: Db, tenantId: TenantId, eventKey?: string) {
  const t = notificationEventOverrides;
  const rows = await db
    .select()
    .from(t)
    .where(and(ownOrPlatform(t.tenantId, tenantId), eventKey ? eq(t.eventKey, eventKey) : undefined));
  rows.sort((a, b) => (a.tenantId === null ? 0 : 1) - (b.tenantId === null ? 0 : 1));
  const out = new Map<string, Map<Channel, ScopeRule>>();
  for (const r of rows) {
    const byChannel = out.get(r.eventKey) ?? new Map<Channel, ScopeRule>();
    const rule = { enabled: r.enabled, locked: r.locked };
    if (r.tenantId === null) byChannel.set(r.channel, { ...rule, level: 'platform', platform: rule });
    else byChannel.set(r.channel, { ...rule, level: 'tenant', platform: byChannel.get(r.channel)?.platform ?? null });
    out.set(r.eventKey, byChannel);
  }
  return out;
}

/** recipientKey → eventKey → channel → switch (only stored, i.e. non-default, switches). */
export async function loadPreferences(db: Db, tenantId: TenantId, recipientKeys: string[], eventKey?: string) {
  const out = new Map<string, Map<string, Map<Channel, boolean>>>();
  if (recipientKeys.length === 0) return out;
  const t = notificationPreferences;
  const rows = await db
    .select()
    .from(t)
    .where(
      and(
        tenantFilter(t, { tenantId }),
        inArray(t.recipientKey, recipientKeys),
        eventKey ? eq(t.eventKey, eventKey) : undefined,
      ),
    );
  for (const r of rows) {
    const byEvent = out.get(r.recipientKey) ?? new Map<string, Map<Channel, boolean>>();
    const byChannel = byEvent.get(r.eventKey) ?? new Map<Channel, boolean>();
    byChannel.set(r.channel, r.enabled);
    byEvent.set(r.eventKey, byChannel);
    out.set(r.recipientKey, byEvent);
  }
  return out;
}

export async function loadSettings(db: Db, tenantId: TenantId, recipientKeys: string[]) {
  const out = new Map<string, RecipientSettings>();
  if (recipientKeys.length === 0) return out;
  const t = notificationRecipientSettings;
  const rows = await db
    .select()
    .from(t)
    .where(and(tenantFilter(t, { tenantId }), inArray(t.recipientKey, recipientKeys)));
  for (const r of rows) {
    out.set(r.recipientKey, {
      globalMuted: r.globalMuted,
      timezone: r.timezone,
      quietStart: r.quietStart,
      quietEnd: r.quietEnd,
      digestMode: r.digestMode,
      digestHour: r.digestHour,
    });
  }
  return out;
}

export const settingsOf = (map: Map<string, RecipientSettings>, key: string) => map.get(key) ?? DEFAULT_SETTINGS;

/** Deletes a scope's override of one event channel; answers how many rows it had (0 or 1). */
export async function deleteOverride(tx: Db, scope: TenantScope, eventKey: string, channel: Channel): Promise<number> {
  const t = notificationEventOverrides;
  const mine = and(tenantFilter(t, scope), eq(t.eventKey, eventKey), eq(t.channel, channel));
  return (await tx.delete(t).where(mine).returning({ id: t.id })).length;
}

export async function insertOverride(
  tx: Db,
  scope: TenantScope,
  rule: { eventKey: string; channel: Channel; enabled: boolean; locked: boolean; updatedBy: number | null },
): Promise<void> {
  await tx.insert(notificationEventOverrides).values({ tenantId: platformKey(scope.tenantId), ...rule });
}

/** Deletes a scope's overrides of one event, or of all; answers how many. */
export async function deleteOverrides(db: Db, scope: TenantScope, eventKey: string | undefined): Promise<number> {
  const t = notificationEventOverrides;
  const rows = await db
    .delete(t)
    .where(and(tenantFilter(t, scope), eventKey ? eq(t.eventKey, eventKey) : undefined))
    .returning({ id: t.id });
  return rows.length;
}

export async function deletePreference(tx: Db, owner: Owner, eventKey: string, channel: Channel): Promise<void> {
  const t = notificationPreferences;
  await tx
    .delete(t)
    .where(
      and(
        tenantFilter(t, owner),
        eq(t.recipientKey, owner.recipientKey),
        eq(t.eventKey, eventKey),
        eq(t.channel, channel),
      ),
    );
}

export async function insertPreference(
  tx: Db,
  owner: Owner,
  item: { eventKey: string; channel: Channel; enabled: boolean },
): Promise<void> {
  await tx
    .insert(notificationPreferences)
    .values({ tenantId: platformKey(owner.tenantId), recipientKey: owner.recipientKey, ...item });
}

export async function deleteRecipientSettings(tx: Db, owner: Owner): Promise<void> {
  const t = notificationRecipientSettings;
  await tx.delete(t).where(and(tenantFilter(t, owner), eq(t.recipientKey, owner.recipientKey)));
}

export async function insertRecipientSettings(tx: Db, owner: Owner, settings: RecipientSettings): Promise<void> {
  await tx
    .insert(notificationRecipientSettings)
    .values({ tenantId: platformKey(owner.tenantId), recipientKey: owner.recipientKey, ...settings });
}
