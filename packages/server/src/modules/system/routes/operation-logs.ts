import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { PageOf } from '../../../platform/http/schemas.ts';
import type { OperationLogService } from '../operation-log-service.ts';
import { MyOperationLogQuery, OperationLog, OperationLogQuery } from '../schemas.ts';

export function operationLogRoutes(app: FastifyInstance, logs: OperationLogService) {
  route(app, {
    method: 'GET',
    url: '/api/operation-logs',
    operation: 'system.operation_log.list',
    auth: 'user',
    permission: 'monitor:operation-log:list',
    schema: {
      tags: ['OperationLogs'],
      summary: "The tenant's operation log, newest first",
      description:
        'Filters: userId, username (contains), module, operation, ip (contains), statusCode, from (inclusive), to (exclusive).',
      querystring: OperationLogQuery,
      response: PageOf(OperationLog),
    },
    handler: async (req) => logs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/profile/operation-logs',
    operation: 'system.operation_log.mine',
    auth: 'user',
    schema: {
      tags: ['Profile'],
      summary: 'My own operation records, newest first',
      querystring: MyOperationLogQuery,
      response: PageOf(OperationLog),
    },
    handler: async (req) => logs.mine(req.scope, req.query),
  });
}
