import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { consoleSiteRoute, siteRoutes } from './routes.ts';
import { createSiteService } from './service.ts';
import { createSiteCache } from './site-cache.ts';

/**
 * Reporting sites: the tenant attribution and origin allow-list of anonymous reports, and the
 * console's own site (console-site.ts).
 */
export function createSites(ctx: AppContext) {
  const cache = createSiteCache(ctx.db, ctx.cache, ctx.clock);
  const service = createSiteService(ctx, cache);
  return {
    /** the active site a public key names, or null (cached) */
    activeByKey: cache.active,
    async register(app: FastifyInstance) {
      await cache.listen();
      siteRoutes(app, service);
      consoleSiteRoute(app, cache.consoleSiteKey);
    },
  };
}
