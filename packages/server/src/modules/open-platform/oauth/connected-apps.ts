import { and, desc, eq, gt, isNull, max } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { route } from '../../../platform/http/route.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { openApps } from '../apps/tables.ts';
import type { OAuthDeps } from './deps.ts';
import { oauthConsents, oauthTokens } from './tables.ts';
import { revokeUserApp } from './tokens.ts';

const ConnectedApp = Type.Object({
  appId: Type.Integer(),
  clientId: Type.String(),
  name: Type.String(),
  description: Type.String(),
  homepageUrl: Type.String(),
  logoUrl: Type.String(),
  scopes: Type.Array(Type.String()),
  grantedAt: Type.String({ format: 'date-time' }),
  /** when the newest live token was issued; null when none is live */
  lastTokenAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

function signedIn(scope: Scope) {
  const user = userOf(scope);
  if (!user) throw httpErrors.unauthenticated();
  return user;
}

/** The signed-in user's own view of the applications they authorized, and the way to cut one off. */
export function connectedAppsRoutes(app: FastifyInstance, deps: OAuthDeps): void {
  const { ctx } = deps;

  route(app, {
    method: 'GET',
    url: '/api/open-platform/connected-apps',
    operation: 'open_platform.connected_app.list',
    auth: 'user',
    schema: {
      tags: ['OpenApps'],
      summary: 'Applications I authorized (consents), with the scopes granted',
      response: Type.Array(ConnectedApp),
    },
    handler: async (req) => {
      const user = signedIn(req.scope);
      const now = ctx.clock();
      const c = oauthConsents;
      const t = oauthTokens;
      const live = ctx.db
        .select({ appId: t.appId, last: max(t.createdAt).as('last') })
        .from(t)
        .where(and(eq(t.userId, user.userId), isNull(t.revokedAt), isNull(t.usedAt), gt(t.expiresAt, now)))
        .groupBy(t.appId)
        .as('live');
      const rows = await ctx.db
        .select({ consent: c, app: openApps, last: live.last })
        .from(c)
        .innerJoin(openApps, eq(openApps.id, c.appId))
        .leftJoin(live, eq(live.appId, c.appId))
        .where(eq(c.userId, user.userId))
        .orderBy(desc(c.updatedAt));
      return rows.map(({ consent, app: a, last }) => ({
        appId: a.id,
        clientId: a.clientId,
        name: a.name,
        description: a.description,
        homepageUrl: a.homepageUrl,
        logoUrl: a.logoUrl,
        scopes: consent.scopes,
        grantedAt: consent.createdAt.toISOString(),
        lastTokenAt: last ? new Date(last).toISOString() : null,
      }));
    },
  });

  route(app, {
    method: 'DELETE',
    url: '/api/open-platform/connected-apps/:id',
    operation: 'open_platform.connected_app.revoke',
    auth: 'user',
    schema: {
      tags: ['OpenApps'],
      summary: 'Disconnect an application: its consent, tokens and open codes for me end now',
      params: IdParams,
      response: Type.Null(),
    },
    handler: async (req) => {
      const user = signedIn(req.scope);
      if (!(await revokeUserApp(ctx.db, user.userId, req.params.id, ctx.clock()))) {
        throw httpErrors.notFound('open_platform.connected_app_not_found', 'Connected application');
      }
      return null;
    },
  });
}
