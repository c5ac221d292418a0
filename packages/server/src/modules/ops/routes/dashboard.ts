import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import type { StatusService } from '../status-service.ts';

const Count = Type.Integer({ minimum: 0 });

/** `/api/dashboard/stats`. */
export function dashboardRoutes(app: FastifyInstance, status: StatusService) {
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
    handler: async (req) => status.dashboard(req.scope),
  });
}
