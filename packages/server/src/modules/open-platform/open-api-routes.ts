import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../platform/http/route.ts';

const Me = Type.Object({
  appId: Type.Integer(),
  clientId: Type.String(),
  tenantId: Type.Union([Type.Integer(), Type.Null()]),
  /** the user who authorized the application; null for client credentials */
  userId: Type.Union([Type.Integer(), Type.Null()]),
  scopes: Type.Array(Type.String()),
});

/**
 * The open interface's own first route (spec §9.1: /api/open/v1/): who the presented access token
 * speaks for. Integrators use it to check a token end to end; module routes (drive) follow.
 */
export function openApiRoutes(app: FastifyInstance): void {
  route(app, {
    method: 'GET',
    url: '/api/open/v1/me',
    operation: 'open_platform.open_api_caller.get',
    auth: 'app',
    audit: false,
    schema: {
      tags: ['OpenApi'],
      summary: 'The application, tenant, user and scopes an OAuth 2 access token stands for',
      response: Me,
    },
    handler: async (req) => {
      const p = req.scope.principal;
      if (p?.kind !== 'app') throw new Error('auth app route without an app principal');
      return { appId: p.appId, clientId: p.clientId, tenantId: p.tenantId, userId: p.userId, scopes: [...p.scopes] };
    },
  });
}
