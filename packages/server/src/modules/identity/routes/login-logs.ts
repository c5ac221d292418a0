import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { Id, PageOf, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import type { LoginLogsService } from '../login-logs-service.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const LoginLogView = Type.Object({
  id: Type.Integer(),
  userId: Nullable(Type.Integer({ description: 'null when the username matched no user' })),
  username: Type.String({ description: 'as typed at sign-in' }),
  ip: Type.String(),
  userAgent: Type.String(),
  success: Type.Boolean(),
  reason: Type.String({ description: 'ok, invalid_credentials, account_locked, account_disabled, tenant_unavailable' }),
  createdAt: Timestamp,
});
const LoginLogListQuery = Type.Object({
  ...PageQuery.properties,
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'exact username' })),
  userId: Type.Optional(Id),
  ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact address' })),
  success: Type.Optional(Type.Boolean()),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'inclusive, RFC 3339' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'exclusive, RFC 3339' })),
});

export function loginLogRoutes(app: FastifyInstance, loginLogs: LoginLogsService) {
  route(app, {
    method: 'GET',
    url: '/api/login-logs',
    operation: 'identity.login_log.list',
    auth: 'user',
    permission: 'monitor:login-log:list',
    schema: {
      tags: ['LoginLogs'],
      summary: "Sign-in attempts of the caller's tenant, newest first",
      querystring: LoginLogListQuery,
      response: PageOf(LoginLogView),
    },
    handler: async (req) => loginLogs.list(req.scope, req.query),
  });
}
