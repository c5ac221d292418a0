import type { AppContext } from '../../../platform/context.ts';
import { addPlatformSiteOrigin, insertPlatformSite } from './repository.ts';
import { newSiteKey } from './service.ts';
import { consoleSiteChanged } from './site-cache.ts';

/** What a fresh install calls the console's site; an administrator may rename it. */
export const CONSOLE_SITE_NAME = 'Web console';

export type ConsoleSiteSeed = { created: boolean; originAdded: boolean };

/**
 * Every start: the web console's own reporting site (docs/decisions/0037). The platform's one site
 * (tenant null) is created when there is none — at the first start, or after an administrator
 * deleted it: disabling it, not deleting it, is how console reporting is switched off — and the
 * console's origin (PUBLIC_BASE_URL's) is added to its allowed origins when missing, so the
 * console served where the service says it is can always report. Origins an administrator added
 * stay; status and name are never touched. Safe with several instances starting together: the
 * insert yields to the one platform site the unique index allows, and the append is conditional.
 */
export async function seedConsoleSite({
  db,
  cache,
  links,
  clock,
}: Pick<AppContext, 'db' | 'cache' | 'links' | 'clock'>): Promise<ConsoleSiteSeed> {
  const origin = new URL(links.base).origin.toLowerCase();
  const created = await insertPlatformSite(db, { name: CONSOLE_SITE_NAME, siteKey: newSiteKey(), origin });
  if (created) {
    await consoleSiteChanged(cache, created.siteKey);
    return { created: true, originAdded: true };
  }
  const widened = await addPlatformSiteOrigin(db, origin, clock());
  if (widened) await consoleSiteChanged(cache, widened.siteKey);
  return { created: false, originAdded: Boolean(widened) };
}
