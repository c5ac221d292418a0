import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { type DashboardSources, dashboardRoutes } from './dashboard.ts';
import { healthRoutes } from './health.ts';
import { opsJobs } from './jobs.ts';
import { licenseRoutes } from './license.ts';
import { checkLicense } from './license-check.ts';
import { serverAlertRoutes } from './server-alert-routes.ts';
import { type AlertDeps, checkServerThresholds } from './server-alerts.ts';
import { serverMonitorRoutes } from './server-monitor.ts';
import { opsSettings } from './settings.ts';

export type { DashboardSources } from './dashboard.ts';
export { opsEvents } from './events.ts';

export type OpsDeps = { dashboard: DashboardSources } & AlertDeps;

/** Operations: health, metrics, server monitor, licence, dashboard. */
export function createOpsModule(ctx: AppContext, deps: OpsDeps) {
  ctx.settingsRegistry.register(opsSettings);
  ctx.jobs.register(opsJobs, () => ({
    checkServerThresholds: () => checkServerThresholds(ctx, deps),
    checkLicense: () => checkLicense(ctx, deps),
  }));
  return {
    async register(app: FastifyInstance) {
      healthRoutes(app, ctx);
      serverMonitorRoutes(app, ctx);
      serverAlertRoutes(app, deps);
      licenseRoutes(app, ctx);
      dashboardRoutes(app, ctx, deps.dashboard);
    },
  };
}
