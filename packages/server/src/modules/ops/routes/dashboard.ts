import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { type StatusService, TREND_DAYS } from '../status-service.ts';

const Count = Type.Integer({ minimum: 0 });

const TrendDay = Type.Object({
  date: Type.String({ format: 'date', description: 'a calendar day (YYYY-MM-DD) in `trend.timeZone`' }),
  loginsSucceeded: Count,
  loginsFailed: Count,
  operations: Count,
});

const Trend = Type.Object(
  {
    timeZone: Type.Literal('UTC', { description: 'the zone the days are cut in: UTC days, as the totals of today' }),
    days: Type.Array(TrendDay, {
      minItems: TREND_DAYS,
      maxItems: TREND_DAYS,
      description: 'oldest first; the last is today',
    }),
  },
  {
    description: `Sign-ins (succeeded, failed) and operations per day over the last ${TREND_DAYS} days, today included; a day without any is 0`,
  },
);

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
      summary:
        "Totals of the caller's tenant: users, online users, today's sign-ins and operations (UTC day), and the daily trend",
      response: Type.Object({
        users: Count,
        onlineUsers: Count,
        todayLogins: Count,
        todayOperations: Count,
        trend: Trend,
      }),
    },
    handler: async (req) => status.dashboard(req.scope),
  });
}
