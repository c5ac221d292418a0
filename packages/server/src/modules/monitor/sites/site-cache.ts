import type { Cache } from '../../../platform/cache/cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { activeSiteByKey, type SiteRow } from './repository.ts';

const CHANNEL = 'monitor:site-changed';
/** a bound on staleness should an invalidation message be lost (Redis reconnecting) */
const TTL_MS = 30_000;
/** unknown keys are cached too (anyone can send one): the map stays bounded */
const MAX_ENTRIES = 10_000;

/**
 * Active sites by their public key, for the attribution of anonymous reports (spec §4.6 rule 1):
 * a report must not cost a site query. Each instance keeps them in memory; creating, editing,
 * disabling or deleting a site drops its key here at once and, through cache pub/sub (Redis with
 * several instances), on every other instance within milliseconds.
 */
export function createSiteCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe'>, clock: () => Date) {
  const entries = new Map<string, { site: SiteRow | null; at: number }>();
  // bumped by every drop: a load that was in flight across a change must not store what it read
  let generation = 0;
  const drop = (siteKey: string) => {
    generation++;
    entries.delete(siteKey);
  };

  return {
    /** subscribes to other instances' changes; call once at module registration */
    listen: () => cache.subscribe(CHANNEL, drop),

    /** the active site the key names, or null */
    async active(siteKey: string): Promise<SiteRow | null> {
      const now = clock().getTime();
      const hit = entries.get(siteKey);
      if (hit && now - hit.at < TTL_MS) return hit.site;
      const started = generation;
      const site = await activeSiteByKey(db, siteKey);
      if (generation === started) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(siteKey, { site, at: now });
      }
      return site;
    },

    /** after the change committed: here at once, elsewhere through pub/sub */
    async changed(siteKey: string): Promise<void> {
      drop(siteKey);
      await cache.publish(CHANNEL, siteKey);
    },
  };
}

export type SiteCache = ReturnType<typeof createSiteCache>;
