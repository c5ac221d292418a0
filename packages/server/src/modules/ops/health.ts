import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../platform/context.ts';
import { AppError } from '../../platform/http/errors.ts';
import { route } from '../../platform/http/route.ts';
import { VERSION } from '../../version.ts';

const startedAt = Date.now();

export function healthRoutes(app: FastifyInstance, ctx: AppContext) {
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
    handler: async () => {
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
  });

  // Prometheus exposition; not an API operation, so it stays out of the OpenAPI document (§4.2).
  app.get(
    '/metrics',
    { schema: { hide: true }, config: { operation: 'ops.metrics.get', auth: 'public' } },
    async (_req, reply) => {
      reply.type(ctx.metrics.registry.contentType);
      return ctx.metrics.registry.metrics();
    },
  );
}
