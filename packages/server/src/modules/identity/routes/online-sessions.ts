import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import type { OnlineSessionsService } from '../online-sessions-service.ts';

export const SessionView = Type.Object({
  id: Type.Integer(),
  userId: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  ip: Type.String(),
  userAgent: Type.String(),
  createdAt: Timestamp,
  lastActiveAt: Timestamp,
  expiresAt: Timestamp,
});
const SessionListQuery = Type.Object({
  ...PageQuery.properties,
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact username' })),
  ip: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'exact address' })),
});

export function onlineSessionRoutes(app: FastifyInstance, onlineSessions: OnlineSessionsService) {
  const tags = ['OnlineSessions'];

  route(app, {
    method: 'GET',
    url: '/api/online-sessions',
    operation: 'identity.online_session.list',
    auth: 'user',
    permission: 'monitor:online:list',
    schema: {
      tags,
      summary: "Live sessions of the caller's tenant (not revoked, not expired), most recently active first",
      querystring: SessionListQuery,
      response: PageOf(SessionView),
    },
    handler: async (req) => onlineSessions.list(req.scope, req.query),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/online-sessions/:id',
    operation: 'identity.online_session.force_logout',
    auth: 'user',
    permission: 'monitor:online:force-logout',
    schema: {
      tags,
      summary: 'Force logout: end a live session; its tokens stop working at the next request',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await onlineSessions.forceLogout(req.scope, req.params.id);
    },
  });
}
