import type { Cache } from '../../../platform/cache/cache.ts';
import { createLocalCache } from '../../../platform/cache/local-cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type AlertRuleRow, enabledRules } from './repository.ts';

const keyOf = (tenantId: number | null) => String(tenantId);

/**
 * The enabled alert rules of each tenant, for report-time evaluation (spec §4.6 rule 6): a report
 * must not cost a rule query. Kept in the kernel's local cache; a rule created, edited, enabled,
 * deleted or fired drops its tenant's entry on every instance. Firing stays exact whatever this
 * holds: the debounce is the conditional update of `claimFiring`.
 */
export function createRuleCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe' | 'watch'>, clock: () => Date) {
  const rules = createLocalCache<AlertRuleRow[]>({
    channel: 'monitor:alert-rules-changed',
    load: (key) => enabledRules(db, key === 'null' ? null : Number(key)),
    cache,
    clock,
  });
  return {
    listen: rules.listen,
    enabled: (tenantId: number | null) => rules.get(keyOf(tenantId)),
    /** after the change committed */
    changed: (tenantId: number | null) => rules.changed(keyOf(tenantId)),
  };
}

export type RuleCache = ReturnType<typeof createRuleCache>;
