import type { Cache } from '../../../platform/cache/cache.ts';
import { createLocalCache } from '../../../platform/cache/local-cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { activeSiteByKey, type SiteRow } from './repository.ts';

/**
 * Active sites by their public key, for the attribution of anonymous reports (spec §4.6 rule 1):
 * a report must not cost a site query. Kept in the kernel's local cache (unknown keys too: anyone
 * can send one, and the cache is bounded); creating, editing, disabling or deleting a site drops
 * its key on every instance.
 */
export function createSiteCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe'>, clock: () => Date) {
  const sites = createLocalCache<SiteRow | null>({
    channel: 'monitor:site-changed',
    load: (siteKey) => activeSiteByKey(db, siteKey),
    cache,
    clock,
  });
  return {
    listen: sites.listen,
    /** the active site the key names, or null */
    active: sites.get,
    /** after the change committed */
    changed: sites.changed,
  };
}

export type SiteCache = ReturnType<typeof createSiteCache>;
