import { and, eq, sql } from 'drizzle-orm';
import type { Cache } from '../../../platform/cache/cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { AlertRuleRow } from './evaluate.ts';
import { errorAlertRules } from './tables.ts';

const CHANNEL = 'monitor:alert-rules-changed';
/** a bound on staleness should an invalidation message be lost (Redis reconnecting) */
const TTL_MS = 30_000;

const keyOf = (tenantId: number | null) => String(tenantId);

/**
 * The enabled alert rules of each tenant, for report-time evaluation (spec §4.6 rule 6): a report
 * must not cost a rule query. Each instance keeps them in memory; a rule created, edited, enabled,
 * deleted or fired drops its tenant's entry here at once and, through cache pub/sub (Redis with
 * several instances), on every other instance within milliseconds. Firing stays exact whatever
 * this holds: the debounce is the conditional update of `claimFiring`.
 */
export function createRuleCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe'>, clock: () => Date) {
  const entries = new Map<string, { rules: AlertRuleRow[]; at: number }>();
  // bumped by every drop: a load that was in flight across a change must not store what it read
  let generation = 0;
  const drop = (key: string) => {
    generation++;
    entries.delete(key);
  };

  return {
    /** subscribes to other instances' changes; call once at module registration */
    listen: () => cache.subscribe(CHANNEL, drop),

    async enabled(tenantId: number | null): Promise<AlertRuleRow[]> {
      const key = keyOf(tenantId);
      const now = clock().getTime();
      const hit = entries.get(key);
      if (hit && now - hit.at < TTL_MS) return hit.rules;
      const started = generation;
      const rules = await db
        .select()
        .from(errorAlertRules)
        .where(
          and(eq(errorAlertRules.enabled, true), sql`${errorAlertRules.tenantId} IS NOT DISTINCT FROM ${tenantId}`),
        )
        .orderBy(errorAlertRules.id);
      if (generation === started) entries.set(key, { rules, at: now });
      return rules;
    },

    /** after the change committed: here at once, elsewhere through pub/sub */
    async changed(tenantId: number | null): Promise<void> {
      const key = keyOf(tenantId);
      drop(key);
      await cache.publish(CHANNEL, key);
    },
  };
}

export type RuleCache = ReturnType<typeof createRuleCache>;
