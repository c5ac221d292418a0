import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { monitorSettings } from '../settings.ts';
import { createSites } from '../sites/index.ts';
import { reportRoutes } from './routes.ts';
import { createIngestService, type IngestHooks } from './service.ts';

/** Report ingestion (POST /api/frontend-errors), grouping into issues, and the reporting sites. */
export function createIngest(ctx: AppContext, hooks: IngestHooks = {}) {
  ctx.settingsRegistry.register(monitorSettings);
  const sites = createSites(ctx);
  const service = createIngestService(ctx, sites.activeByKey, hooks);
  return {
    async register(app: FastifyInstance) {
      reportRoutes(app, service, ctx.config.bodyLimitBytes);
      await sites.register(app);
    },
  };
}
