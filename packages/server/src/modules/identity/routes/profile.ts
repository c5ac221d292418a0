import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { route } from '../../../platform/http/route.ts';
import { PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import { listLoginLogs } from '../login-log-queries.ts';
import { listLiveSessions } from '../online-sessions.ts';
import { LoginLogView } from './login-logs.ts';
import { SessionView } from './online-sessions.ts';

/**
 * The signed-in user's own records (profile tabs). No permission: everyone sees their own.
 * The user's own tenant is used, not the request scope, so a super administrator working
 * inside a tenant (X-Tenant-Id) still sees their platform-level records.
 */
export function profileRoutes(app: FastifyInstance, ctx: AppContext) {
  const tags = ['Profile'];
  const me = (req: { scope: Parameters<typeof userOf>[0] }) => {
    const p = userOf(req.scope);
    if (!p) throw httpErrors.unauthenticated();
    return p;
  };

  route(app, {
    method: 'GET',
    url: '/api/profile/login-logs',
    operation: 'identity.profile.login_logs',
    auth: 'user',
    schema: { tags, summary: 'My sign-ins, newest first', querystring: PageQuery, response: PageOf(LoginLogView) },
    handler: async (req) => {
      const p = me(req);
      return listLoginLogs(ctx.db, { tenantId: p.tenantId }, { ...req.query, userId: p.userId });
    },
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
    handler: async (req) => {
      const p = me(req);
      const page = await listLiveSessions(
        ctx.db,
        { tenantId: p.tenantId },
        { ...req.query, userId: p.userId },
        ctx.clock(),
      );
      return { ...page, list: page.list.map((s) => ({ ...s, current: s.id === p.sessionId })) };
    },
  });
}
