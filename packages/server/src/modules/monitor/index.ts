import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { type AlertDeps, createAlerts } from './alerts/index.ts';
import { createIngest } from './ingest/index.ts';
import type { IssuesDeps } from './issues/deps.ts';
import { createIssues } from './issues/index.ts';
import { createSourceMaps } from './sourcemaps/index.ts';

export { monitorEvents } from './events.ts';
export { seedConsoleSite } from './sites/console-site.ts';

/** What monitoring needs from other modules (wired in app.ts); the restorer comes from here. */
export type MonitorDeps = Omit<IssuesDeps, 'restore'> & Pick<AlertDeps, 'notify'>;

/**
 * Front-end error monitoring (spec §1.6, §2.5, §3.4, §4.6): ingestion of browser reports,
 * grouping into issues, the issue views, and source maps that restore minified stacks.
 */
export function createMonitorModule(ctx: AppContext, deps: MonitorDeps) {
  const alerts = createAlerts(ctx, deps);
  const ingest = createIngest(ctx, { onReport: alerts.onReport });
  const sourceMaps = createSourceMaps(ctx);
  const issues = createIssues(ctx, { ...deps, restore: sourceMaps.restore });
  return {
    async register(app: FastifyInstance) {
      await ingest.register(app);
      await issues.register(app);
      await alerts.register(app);
      await sourceMaps.register(app);
    },
  };
}

export type MonitorModule = ReturnType<typeof createMonitorModule>;
