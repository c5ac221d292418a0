import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { createAuthService } from './auth-service.ts';
import { authRoutes } from './routes/auth.ts';
import { securitySettings } from './security-settings.ts';
import { createSessions, SESSION_CONTROL_CHANNEL } from './sessions.ts';

/** Identity and access: tenants, users, RBAC, sessions and sign-in. */
export function createIdentityModule(ctx: AppContext) {
  ctx.settingsRegistry.register(securitySettings);
  const sessions = createSessions(ctx);
  const auth = createAuthService(ctx, sessions);

  return {
    resolveAuth: sessions.resolveAuth,
    sessions,
    auth,
    async register(app: FastifyInstance) {
      authRoutes(app, ctx, auth, sessions);
      // A session revoked on any instance closes its live sockets here too.
      await ctx.cache.subscribe(SESSION_CONTROL_CHANNEL, (raw) => {
        const { revoked } = JSON.parse(raw) as { revoked: number[] };
        for (const id of revoked) ctx.realtime.disconnectSession(id);
      });
    },
  };
}

export type IdentityModule = ReturnType<typeof createIdentityModule>;
