import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Channel } from '../channels/types.ts';
import { deleteOverride, deleteOverrides, insertOverride } from '../dispatch/rules-repository.ts';
import { baselineRule, eventView, scopeOverrides } from './rules-view.ts';

export type OverrideItem = { eventKey: string; channel: Channel; enabled: boolean; locked?: boolean };
export type OverridesService = ReturnType<typeof createOverridesService>;

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

/** The catalog as a scope's administrators see and change it: channel overrides per event (spec §2.3). */
export function createOverridesService(deps: { db: Db; catalog: Catalog }) {
  const { db, catalog } = deps;
  return {
    /** The catalog with the effective overrides of the scope. */
    async events(scope: Pick<Scope, 'tenantId'>, q: { group?: string; includeHidden?: boolean }) {
      const overrides = await scopeOverrides(db, scope.tenantId);
      return catalog
        .all()
        .filter((e) => (q.includeHidden ?? true) || !e.hidden)
        .filter((e) => !q.group || e.group === q.group)
        .map((e) => eventView(e, overrides));
    },

    /**
     * Saves the scope's overrides sparsely (spec §2.3): a value equal to what applies without this
     * scope's row (the platform's rule for a tenant, the catalog default for the platform) is deleted.
     */
    save(scope: Pick<Scope, 'tenantId'>, items: OverrideItem[], userId: number | null) {
      checkItems(catalog, items, { hiddenAllowed: true });
      return db.transaction(async (tx) => {
        const overrides = await scopeOverrides(tx, scope.tenantId);
        let saved = 0;
        let removed = 0;
        for (const item of items) {
          const def = catalog.get(item.eventKey);
          if (!def) continue;
          const base = baselineRule(def, item.channel, overrides, scope.tenantId);
          const locked = item.locked ?? false;
          const had = await deleteOverride(tx, scope, item.eventKey, item.channel);
          if (base.enabled === item.enabled && base.locked === locked) {
            removed += had;
            continue;
          }
          await insertOverride(tx, scope, {
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
    },

    /** Deletes the scope's overrides (of one event, or all): the defaults apply again. */
    async reset(scope: Pick<Scope, 'tenantId'>, eventKey: string | undefined) {
      if (eventKey !== undefined && !catalog.get(eventKey))
        throw httpErrors.invalidField('eventKey', 'unknown event key');
      return { removed: await deleteOverrides(db, scope, eventKey) };
    },
  };
}
