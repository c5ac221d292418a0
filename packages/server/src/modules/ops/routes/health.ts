import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import type { StatusService } from '../status-service.ts';

/** `/api/health` and `/metrics`. */
export function healthRoutes(app: FastifyInstance, status: StatusService) {
  route(app, {
    method: 'GET',
    url: '/api/health',
    operation: 'ops.health.get',
    auth: 'public',
    schema: {
      tags: ['Monitor'],
      summary: 'Health of the process and its database (503 when the database does not answer)',
      response: Type.Object({
        status: Type.Literal('ok'),
        version: Type.String(),
        uptimeSeconds: Type.Integer(),
        database: Type.Object({ kind: Type.String(), latencyMs: Type.Number() }),
        cache: Type.Object({ kind: Type.String() }),
      }),
    },
    handler: async () => status.health(),
  });

  // Prometheus exposition; not an API operation, so it stays out of the OpenAPI document (§4.2).
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { operation: 'ops.metrics.get', auth: 'public' } },
    async (_req, reply) => {
      const { contentType, body } = await status.metrics();
      reply.type(contentType);
      return body;
    },
  );
}
