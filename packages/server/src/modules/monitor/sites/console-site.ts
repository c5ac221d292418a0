import { and, isNull, not, sql } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import { errorSites } from '../tables.ts';
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
  config,
  clock,
}: Pick<AppContext, 'db' | 'cache' | 'config' | 'clock'>): Promise<ConsoleSiteSeed> {
  const origin = new URL(config.publicBaseUrl).origin.toLowerCase();
  const [created] = await db
    .insert(errorSites)
    .values({ tenantId: null, name: CONSOLE_SITE_NAME, siteKey: newSiteKey(), allowedOrigins: [origin] })
    .onConflictDoNothing()
    .returning({ siteKey: errorSites.siteKey });
  if (created) {
    await consoleSiteChanged(cache, created.siteKey);
    return { created: true, originAdded: true };
  }
  const [widened] = await db
    .update(errorSites)
    .set({ allowedOrigins: sql`array_append(${errorSites.allowedOrigins}, ${origin})`, updatedAt: clock() })
    .where(and(isNull(errorSites.tenantId), not(sql`${origin} = any(${errorSites.allowedOrigins})`)))
    .returning({ siteKey: errorSites.siteKey });
  if (widened) await consoleSiteChanged(cache, widened.siteKey);
  return { created: false, originAdded: Boolean(widened) };
}
