import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { siteRoutes } from './routes.ts';
import { createSiteService } from './service.ts';

/** Reporting sites: the tenant attribution and origin allow-list of anonymous reports. */
export function createSites(ctx: AppContext) {
  const service = createSiteService(ctx);
  return {
    register(app: FastifyInstance) {
      siteRoutes(app, service);
    },
  };
}
