import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { userOf } from '../../../platform/auth/principal.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { route } from '../../../platform/http/route.ts';
import { type AlertDeps, sendTestAlert } from '../server-alerts.ts';

/** "Send test alert" of the server monitor: the caller receives ops.monitor.alert_test (decision 0014). */
export function serverAlertRoutes(app: FastifyInstance, deps: AlertDeps) {
  route(app, {
    method: 'POST',
    url: '/api/monitor/server/test-alert',
    operation: 'ops.server.test_alert',
    auth: 'user',
    permission: 'monitor:server:view',
    schema: {
      tags: ['Monitor'],
      summary: 'Send the server monitor test alert to yourself, through the alert channels in force',
      response: Type.Object({ outboxId: Type.Integer() }),
    },
    handler: async (req) => {
      const user = userOf(req.scope);
      if (!user) throw httpErrors.unauthenticated();
      return { outboxId: await sendTestAlert(deps, { tenantId: req.scope.tenantId, userId: user.userId }) };
    },
  });
}
