import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { createHealthService, type HealthSources } from './health-service.ts';
import { opsJobs } from './jobs.ts';
import { checkLicense } from './license-check.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { healthRoutes } from './routes/health.ts';
import { licenseRoutes } from './routes/license.ts';
import { serverAlertRoutes } from './routes/server-alerts.ts';
import { serverMonitorRoutes } from './routes/server-monitor.ts';
import { type AlertDeps, checkServerThresholds } from './server-alerts.ts';
import { opsSettings } from './settings.ts';
import { createStatusService, type DashboardSources } from './status-service.ts';

export { opsEvents } from './events.ts';
export type { HealthSources } from './health-service.ts';
export type { DashboardSources } from './status-service.ts';

export type OpsDeps = { dashboard: DashboardSources; health: HealthSources } & AlertDeps;

/** Operations: health, metrics, server monitor, licence, dashboard. */
export function createOpsModule(ctx: AppContext, deps: OpsDeps) {
  ctx.settingsRegistry.register(opsSettings);
  ctx.jobs.register(opsJobs, () => ({
    checkServerThresholds: () => checkServerThresholds(ctx, deps),
    checkLicense: () => checkLicense(ctx, deps),
  }));
  const status = createStatusService(ctx, deps.dashboard);
  const health = createHealthService(ctx, deps.health);
  return {
    async register(app: FastifyInstance) {
      healthRoutes(app, status, health);
      serverMonitorRoutes(app, status);
      serverAlertRoutes(app, deps);
      licenseRoutes(app, status);
      dashboardRoutes(app, status);
    },
  };
}
