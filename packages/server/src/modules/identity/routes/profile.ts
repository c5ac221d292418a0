import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import type { ProfileService } from '../profile-service.ts';
import { LoginLogView } from './login-logs.ts';
import { SessionView } from './online-sessions.ts';

/** The signed-in user's own records (profile tabs). No permission: everyone sees their own. */
export function profileRoutes(app: FastifyInstance, profile: ProfileService) {
  const tags = ['Profile'];

  route(app, {
    method: 'GET',
    url: '/api/profile/login-logs',
    operation: 'identity.profile.login_logs',
    auth: 'user',
    schema: { tags, summary: 'My sign-ins, newest first', querystring: PageQuery, response: PageOf(LoginLogView) },
    handler: async (req) => profile.loginLogs(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/profile/sessions',
    operation: 'identity.profile.sessions',
    auth: 'user',
    schema: {
      tags,
      summary: 'My live sessions; `current` marks the one making this request',
      querystring: PageQuery,
      response: PageOf(Type.Object({ ...SessionView.properties, current: Type.Boolean() })),
    },
    handler: async (req) => profile.sessions(req.scope, req.query),
  });
}
