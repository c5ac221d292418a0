import type { Cache } from '../../../platform/cache/cache.ts';
import { createLocalCache } from '../../../platform/cache/local-cache.ts';
import type { Db } from '../../../platform/db/client.ts';
import { activePlatformSiteKey, activeSiteByKey, type SiteRow } from './repository.ts';

/** Invalidation channels: a site's key; the console's site (one entry, `console`). */
export const SITE_CHANNEL = 'monitor:site-changed';
export const CONSOLE_SITE_CHANNEL = 'monitor:console-site-changed';
const CONSOLE = 'console';

/**
 * Active sites by their public key, for the attribution of anonymous reports (spec §4.6 rule 1):
 * a report must not cost a site query. Kept in the kernel's local cache (unknown keys too: anyone
 * can send one, and the cache is bounded); creating, editing, disabling or deleting a site drops
 * its key on every instance. Beside them, the console's site key, which every console load asks
 * for (GET /api/frontend-errors/console-site); any site change drops it too (sites change rarely).
 */
export function createSiteCache(db: Db, cache: Pick<Cache, 'publish' | 'subscribe' | 'watch'>, clock: () => Date) {
  const sites = createLocalCache<SiteRow | null>({
    channel: SITE_CHANNEL,
    load: (siteKey) => activeSiteByKey(db, siteKey),
    cache,
    clock,
  });
  const consoleSite = createLocalCache<string | null>({
    channel: CONSOLE_SITE_CHANNEL,
    load: () => activePlatformSiteKey(db),
    cache,
    clock,
  });
  return {
    async listen() {
      await sites.listen();
      await consoleSite.listen();
    },
    /** the active site the key names, or null */
    active: sites.get,
    /** the key of the console's site when it is active, else null */
    consoleSiteKey: () => consoleSite.get(CONSOLE),
    /** after the change committed */
    async changed(siteKey: string) {
      await sites.changed(siteKey);
      await consoleSite.changed(CONSOLE);
    },
  };
}

/** After the seed changed the console's site: the same drops, from outside the module's instance. */
export async function consoleSiteChanged(cache: Pick<Cache, 'publish'>, siteKey: string): Promise<void> {
  await cache.publish(SITE_CHANNEL, siteKey);
  await cache.publish(CONSOLE_SITE_CHANNEL, CONSOLE);
}

export type SiteCache = ReturnType<typeof createSiteCache>;
