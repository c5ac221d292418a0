import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { alertJobs } from './jobs.ts';
import { alertRoutes } from './routes.ts';
import { type AlertDeps, createAlertService, type ReportedOccurrence } from './service.ts';

export type { AlertDeps } from './service.ts';

/** Alert rules on front-end errors: evaluated at report time and every 5 minutes (spec §4.6 rule 6). */
export function createAlerts(ctx: AppContext, deps: AlertDeps) {
  const service = createAlertService(ctx, deps);
  ctx.jobs.register(alertJobs, () => ({ evaluateAll: () => service.evaluateAll() }));
  return {
    service,
    /**
     * Called after a report's transaction committed. Never awaited by the report: evaluation must
     * not slow or fail it, so errors are logged here.
     */
    onReport(r: ReportedOccurrence): void {
      service
        .onReport(r)
        .catch((err) => ctx.log.error({ err, tenantId: r.tenantId }, 'error alert: report-time evaluation failed'));
    },
    async register(app: FastifyInstance) {
      await service.listen();
      await service.signUnsignedRules();
      alertRoutes(app, service);
    },
  };
}
