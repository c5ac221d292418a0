import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { ServerSnapshot } from '../server-monitor.ts';
import type { StatusService } from '../status-service.ts';

/** `/api/monitor/server`: the machine and the process, now. */
export function serverMonitorRoutes(app: FastifyInstance, status: StatusService) {
  route(app, {
    method: 'GET',
    url: '/api/monitor/server',
    operation: 'ops.server.get',
    auth: 'user',
    permission: 'monitor:server:view',
    schema: {
      tags: ['Monitor'],
      summary: 'CPU, memory, disk of DATA_DIR, this process, and the database pool',
      response: ServerSnapshot,
    },
    handler: async () => status.server(),
  });
}
