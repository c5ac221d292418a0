import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { route } from '../../platform/http/route.ts';

/**
 * Where the dashboard's totals come from. The identity and system modules own the tables; ops
 * only receives their exported functions (ARCHITECTURE §2: a module never queries another's tables).
 * Each counts within `scope.tenantId` (platform scope: platform rows).
 */
export type DashboardSources = {
  identityStats(db: Db, scope: Scope, now: Date): Promise<{ users: number; onlineUsers: number; todayLogins: number }>;
  operationStats(db: Db, scope: Scope, now: Date): Promise<{ todayOperations: number }>;
};

const Count = Type.Integer({ minimum: 0 });

export function dashboardRoutes(app: FastifyInstance, ctx: AppContext, sources: DashboardSources) {
  route(app, {
    method: 'GET',
    url: '/api/dashboard/stats',
    operation: 'ops.dashboard_stats.get',
    auth: 'user',
    permission: 'dashboard:stats:view',
    schema: {
      tags: ['Dashboard'],
      summary: "Totals of the caller's tenant: users, online users, today's sign-ins and operations (UTC day)",
      response: Type.Object({ users: Count, onlineUsers: Count, todayLogins: Count, todayOperations: Count }),
    },
    handler: async (req) => {
      const now = ctx.clock();
      const [identity, operations] = await Promise.all([
        sources.identityStats(ctx.db, req.scope, now),
        sources.operationStats(ctx.db, req.scope, now),
      ]);
      return {
        users: identity.users,
        onlineUsers: identity.onlineUsers,
        todayLogins: identity.todayLogins,
        todayOperations: operations.todayOperations,
      };
    },
  });
}
