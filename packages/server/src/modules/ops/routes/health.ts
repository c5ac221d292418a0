import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { DEPENDENCY_STATES, type HealthReport } from '../../../platform/health/dependency-checks.ts';
import { AppError } from '../../../platform/http/errors.ts';
import { envelopeError, route } from '../../../platform/http/route.ts';
import { VERSION } from '../../../version.ts';
import type { HealthService } from '../health-service.ts';
import type { StatusService } from '../status-service.ts';

const Dependency = Type.Object({
  state: Type.Union(
    DEPENDENCY_STATES.map((s) => Type.Literal(s)),
    { description: 'not_configured: nothing set up (no REDIS_URL, no platform SMTP); disabled: set up, switched off' },
  ),
  required: Type.Boolean({ description: 'while it is down the instance is not ready (503)' }),
  kind: Type.String({ description: 'embedded / external, redis / memory, local / s3, smtp, pg-boss' }),
  latencyMs: Type.Union([Type.Number(), Type.Null()], { description: 'the probe round trip; null when not called' }),
  error: Type.Optional(Type.String({ description: 'why it is down (no addresses: the report is public)' })),
  checkedAt: Type.String({ format: 'date-time', description: 'probes are bounded (1 s) and reused for 2 s' }),
});

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], {
    description: 'degraded: a dependency is down (503 when a required one is)',
  }),
  ready: Type.Boolean(),
  version: Type.String(),
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  dependencies: Type.Object({
    database: Dependency,
    jobs: Dependency,
    cache: Dependency,
    storage: Dependency,
    mail: Dependency,
  }),
});

/** A required dependency is down: the error names it, and the body carries the whole report. */
function notReady(report: HealthReport & { version: string; uptimeSeconds: number }): AppError {
  const down = Object.entries(report.dependencies).filter(([, d]) => d.required && d.state === 'down');
  return new AppError(503, 'ops.dependency_unavailable', `Not ready: ${down.map(([name]) => name).join(', ')} down`, {
    retryAfter: 5,
    details: down.map(([name, d]) => ({ field: name, message: d.error ?? 'down' })),
    extra: { health: report },
  });
}

const notReadyAnswer = envelopeError('A required dependency (database, job runner) is down', {
  health: Type.Optional(Health),
});

/** `/api/health` (and its liveness and readiness forms) and `/metrics`. */
export function healthRoutes(app: FastifyInstance, status: StatusService, health: HealthService) {
  const report = async () => ({ ...(await health.report()), version: VERSION, uptimeSeconds: status.uptimeSeconds() });

  route(app, {
    method: 'GET',
    url: '/api/health',
    operation: 'ops.health.get',
    auth: 'public',
    schema: {
      tags: ['Monitor'],
      summary: 'Each dependency’s state and latency; degraded when one is down, 503 when a required one is',
      response: Health,
    },
    responses: { 503: notReadyAnswer },
    handler: async () => {
      const r = await report();
      if (!r.ready) throw notReady(r);
      return r;
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/health/live',
    operation: 'ops.health.live',
    auth: 'public',
    schema: {
      tags: ['Monitor'],
      summary: 'Liveness: the process answers (no dependency is called; restart the instance only when this fails)',
      response: Type.Object({ status: Type.Literal('ok'), uptimeSeconds: Type.Integer({ minimum: 0 }) }),
    },
    handler: async () => ({ status: 'ok' as const, uptimeSeconds: status.uptimeSeconds() }),
  });

  route(app, {
    method: 'GET',
    url: '/api/health/ready',
    operation: 'ops.health.ready',
    auth: 'public',
    schema: {
      tags: ['Monitor'],
      summary: 'Readiness: 503 while the database or the job runner is down (send traffic elsewhere, do not restart)',
      response: Type.Object({ status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]) }),
    },
    responses: { 503: notReadyAnswer },
    handler: async () => {
      const r = await report();
      if (!r.ready) throw notReady(r);
      return { status: r.status };
    },
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
