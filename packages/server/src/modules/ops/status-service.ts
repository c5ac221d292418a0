import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { serverSnapshot } from './server-monitor.ts';

/**
 * Where the dashboard's totals come from. The identity and system modules own the tables; ops
 * only receives their exported functions (ARCHITECTURE §2: a module never queries another's tables).
 * Each counts within `scope.tenantId` (platform scope: platform rows).
 */
export type DashboardSources = {
  identityStats(scope: Scope, now: Date): Promise<{ users: number; onlineUsers: number; todayLogins: number }>;
  operationStats(scope: Scope, now: Date): Promise<{ todayOperations: number }>;
  /** per UTC day (`YYYY-MM-DD`) in [from, to); days without rows absent */
  signInsByDay(scope: Scope, from: Date, to: Date): Promise<{ day: string; succeeded: number; failed: number }[]>;
  operationsByDay(scope: Scope, from: Date, to: Date): Promise<{ day: string; count: number }[]>;
};

/** How many days the dashboard's trend covers, today included (docs/decisions/0036). */
export const TREND_DAYS = 14;
const DAY_MS = 86_400_000;

/** The trend's UTC days, oldest first, ending with the day of `now`, and the range [from, to) they cover. */
export function trendWindow(now: Date, days = TREND_DAYS) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY_MS);
  const dates = Array.from({ length: days }, (_, i) =>
    new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10),
  );
  return { from, to: new Date(today + DAY_MS), dates };
}

const startedAt = Date.now();

/** The state of the running service: health, metrics, server, licence and the dashboard's totals. */
export function createStatusService(
  ctx: Pick<AppContext, 'config' | 'database' | 'cache' | 'metrics' | 'license' | 'clock' | 'log'>,
  sources: DashboardSources,
) {
  return {
    uptimeSeconds: () => Math.floor((Date.now() - startedAt) / 1000),

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
      const window = trendWindow(now);
      const [identity, operations, signIns, operationDays] = await Promise.all([
        sources.identityStats(scope, now),
        sources.operationStats(scope, now),
        sources.signInsByDay(scope, window.from, window.to),
        sources.operationsByDay(scope, window.from, window.to),
      ]);
      // the queries answer only days that have rows: every other day of the window is 0
      const signInsOf = new Map(signIns.map((d) => [d.day, d]));
      const operationsOf = new Map(operationDays.map((d) => [d.day, d.count]));
      return {
        users: identity.users,
        onlineUsers: identity.onlineUsers,
        todayLogins: identity.todayLogins,
        todayOperations: operations.todayOperations,
        trend: {
          timeZone: 'UTC' as const,
          days: window.dates.map((date) => ({
            date,
            loginsSucceeded: signInsOf.get(date)?.succeeded ?? 0,
            loginsFailed: signInsOf.get(date)?.failed ?? 0,
            operations: operationsOf.get(date) ?? 0,
          })),
        },
      };
    },
  };
}

export type StatusService = ReturnType<typeof createStatusService>;
