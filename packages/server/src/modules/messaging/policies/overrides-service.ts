import { and, eq } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Channel } from '../channels/types.ts';
import { notificationEventOverrides } from '../dispatch/tables.ts';
import { baselineRule, scopeOverrides } from './rules-view.ts';

export type OverrideItem = { eventKey: string; channel: Channel; enabled: boolean; locked?: boolean };

/** Every item must name a catalog event and one of its available channels; all errors at once. */
export function checkItems(
  catalog: Catalog,
  items: { eventKey: string; channel: Channel }[],
  opts: { hiddenAllowed: boolean },
) {
  const details: { field: string; message: string }[] = [];
  items.forEach((item, i) => {
    const def = catalog.get(item.eventKey);
    if (!def || (def.hidden && !opts.hiddenAllowed))
      details.push({ field: `items.${i}.eventKey`, message: 'unknown event key' });
    else if (!def.availableChannels.includes(item.channel))
      details.push({ field: `items.${i}.channel`, message: `${item.eventKey} cannot use the ${item.channel} channel` });
  });
  if (details.length) throw httpErrors.validation(details);
}

/**
 * Saves the scope's overrides sparsely (spec §2.3): a value equal to what applies without this
 * scope's row (the platform's rule for a tenant, the catalog default for the platform) is deleted.
 */
export async function saveOverrides(
  db: Db,
  catalog: Catalog,
  scope: Scope,
  items: OverrideItem[],
  userId: number | null,
) {
  checkItems(catalog, items, { hiddenAllowed: true });
  const t = notificationEventOverrides;
  return db.transaction(async (tx) => {
    const overrides = await scopeOverrides(tx, scope.tenantId);
    let saved = 0;
    let removed = 0;
    for (const item of items) {
      const def = catalog.get(item.eventKey);
      if (!def) continue;
      const base = baselineRule(def, item.channel, overrides, scope.tenantId);
      const locked = item.locked ?? false;
      const mine = and(tenantFilter(t, scope), eq(t.eventKey, item.eventKey), eq(t.channel, item.channel));
      const had = (await tx.delete(t).where(mine).returning({ id: t.id })).length;
      if (base.enabled === item.enabled && base.locked === locked) {
        removed += had;
        continue;
      }
      await tx.insert(t).values({
        tenantId: scope.tenantId,
        eventKey: item.eventKey,
        channel: item.channel,
        enabled: item.enabled,
        locked,
        updatedBy: userId,
      });
      saved += 1;
    }
    return { saved, removed };
  });
}

/** Deletes the scope's overrides (of one event, or all): the defaults apply again. */
export async function resetOverrides(db: Db, catalog: Catalog, scope: Scope, eventKey: string | undefined) {
  if (eventKey !== undefined && !catalog.get(eventKey)) throw httpErrors.invalidField('eventKey', 'unknown event key');
  const t = notificationEventOverrides;
  const rows = await db
    .delete(t)
    .where(and(tenantFilter(t, scope), eventKey ? eq(t.eventKey, eventKey) : undefined))
    .returning({ id: t.id });
  return { removed: rows.length };
}
