import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { type DashboardSources, dashboardRoutes } from './dashboard.ts';
import { healthRoutes } from './health.ts';
import { licenseRoutes } from './license.ts';
import { serverMonitorRoutes } from './server-monitor.ts';

export type { DashboardSources } from './dashboard.ts';

export type OpsDeps = { dashboard: DashboardSources };

/** Operations: health, metrics, server monitor, licence, dashboard. */
export function createOpsModule(ctx: AppContext, deps: OpsDeps) {
  return {
    async register(app: FastifyInstance) {
      healthRoutes(app, ctx);
      serverMonitorRoutes(app, ctx);
      licenseRoutes(app, ctx);
      dashboardRoutes(app, ctx, deps.dashboard);
    },
  };
}
