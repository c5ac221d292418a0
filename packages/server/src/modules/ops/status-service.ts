import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { VERSION } from '../../version.ts';
import { serverSnapshot } from './server-monitor.ts';

/**
 * Where the dashboard's totals come from. The identity and system modules own the tables; ops
 * only receives their exported functions (ARCHITECTURE §2: a module never queries another's tables).
 * Each counts within `scope.tenantId` (platform scope: platform rows).
 */
export type DashboardSources = {
  identityStats(scope: Scope, now: Date): Promise<{ users: number; onlineUsers: number; todayLogins: number }>;
  operationStats(scope: Scope, now: Date): Promise<{ todayOperations: number }>;
};

const startedAt = Date.now();

/** The state of the running service: health, metrics, server, licence and the dashboard's totals. */
export function createStatusService(
  ctx: Pick<AppContext, 'config' | 'database' | 'cache' | 'metrics' | 'license' | 'clock' | 'log'>,
  sources: DashboardSources,
) {
  return {
    /** 503 when the database does not answer */
    async health() {
      const t0 = performance.now();
      try {
        await ctx.database.exec('select 1');
      } catch (err) {
        ctx.log.error({ err }, 'health: database check failed');
        throw new AppError(503, 'ops.database_unavailable', 'The database does not answer');
      }
      return {
        status: 'ok' as const,
        version: VERSION,
        uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        database: { kind: ctx.database.kind, latencyMs: Math.round((performance.now() - t0) * 100) / 100 },
        cache: { kind: ctx.cache.kind },
      };
    },

    /** the Prometheus exposition and its media type */
    async metrics() {
      return { contentType: ctx.metrics.registry.contentType, body: await ctx.metrics.registry.metrics() };
    },

    server: () => serverSnapshot(ctx),

    license() {
      const { licensee, features, expiresAt } = ctx.license;
      return {
        licensee,
        features: features === 'all' ? ('all' as const) : [...features].sort(),
        expiresAt,
        expired: expiresAt !== null && expiresAt <= ctx.clock(),
      };
    },

    async dashboard(scope: Scope) {
      const now = ctx.clock();
      const [identity, operations] = await Promise.all([
        sources.identityStats(scope, now),
        sources.operationStats(scope, now),
      ]);
      return {
        users: identity.users,
        onlineUsers: identity.onlineUsers,
        todayLogins: identity.todayLogins,
        todayOperations: operations.todayOperations,
      };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
