import type { AppContext } from '../../platform/context.ts';
import {
  createDependencyChecks,
  type Dependency,
  type DependencyReport,
  type DependencyState,
  type HealthReport,
  ProbeFailure,
  type ProbeResult,
} from '../../platform/health/dependency-checks.ts';

/**
 * Where the checks of other modules' dependencies come from: files knows the platform's storage,
 * messaging its SMTP configuration (ARCHITECTURE §2: ops does not read their tables).
 */
export type HealthSources = {
  storage: () => Promise<ProbeResult>;
  mail: () => Promise<ProbeResult>;
};

/**
 * `/api/health` and readiness: each dependency's state and latency (dependency-checks.ts). The
 * database and the job runner are required (without them no request that writes can succeed);
 * Redis, storage and mail are not: while one is down the service answers with fallbacks or
 * clear 503s of its own, and the report says `degraded`.
 */
export function createHealthService(
  ctx: Pick<AppContext, 'database' | 'cache' | 'jobs' | 'metrics' | 'log'>,
  sources: HealthSources,
) {
  const checks = createDependencyChecks({
    onDown: (dependency) => ctx.metrics.dependencyFailed(dependency),
    // once per change, with the detail the public report leaves out
    onChange: (dependency: Dependency, report: DependencyReport, err: unknown) => {
      if (report.state === 'down')
        ctx.log.warn({ err, dependency, kind: report.kind }, `health: ${dependency} is down`);
      else ctx.log.info({ dependency, state: report.state }, `health: ${dependency} is ${report.state}`);
    },
    checks: {
      database: {
        required: true,
        kind: ctx.database.kind,
        // The embedded server's supervisor knows first that it is being started again (its pool
        // would only time out); otherwise one round trip on the pool.
        probe: async () => {
          const server = ctx.database.state();
          if (server.state === 'restarting')
            throw new ProbeFailure(ctx.database.kind, `restarting (restart ${server.restarts + 1})`);
          await ctx.database.exec('select 1');
          return { kind: ctx.database.kind };
        },
      },
      jobs: {
        required: true,
        kind: 'pg-boss',
        probe: async () => {
          await ctx.jobs.probe();
          return { kind: 'pg-boss' };
        },
      },
      cache: {
        required: false,
        kind: ctx.cache.kind,
        probe: async () => {
          if (ctx.cache.kind === 'memory') return { state: 'not_configured', kind: 'memory' };
          await ctx.cache.probe();
          return { kind: 'redis' };
        },
      },
      storage: { required: false, kind: 'unknown', probe: sources.storage },
      mail: { required: false, kind: 'smtp', probe: sources.mail },
    },
  });
  ctx.metrics.reportDependencyStates(async () => {
    const { dependencies } = await checks.report();
    return Object.fromEntries(Object.entries(dependencies).map(([d, r]) => [d, r.state])) as Record<
      Dependency,
      DependencyState
    >;
  });

  return {
    /** every dependency's report; `ready` false answers 503 (the routes) */
    report: (): Promise<HealthReport> => checks.report(),
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
