import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { Notifier } from '../messaging/index.ts';
import { findTenantByCode } from './auth-repository.ts';
import { createAuthService } from './auth-service.ts';
import { registerSystemTasks } from './jobs.ts';
import {
  type AudienceTarget,
  activeUsers,
  missingTargets,
  targetsOfUser,
  userContacts,
  usersByTargets,
} from './notification-contacts.ts';
import { oauthSubject } from './oauth-subject.ts';
import { authRoutes } from './routes/auth.ts';
import { departmentRoutes } from './routes/departments.ts';
import { loginLogRoutes } from './routes/login-logs.ts';
import { menusRoutes } from './routes/menus.ts';
import { onlineSessionRoutes } from './routes/online-sessions.ts';
import { permissionsRoutes } from './routes/permissions.ts';
import { positionRoutes } from './routes/positions.ts';
import { profileRoutes } from './routes/profile.ts';
import { rolesRoutes } from './routes/roles.ts';
import { tenantsRoutes } from './routes/tenants.ts';
import { userGroupRoutes } from './routes/user-groups.ts';
import { usersRoutes } from './routes/users.ts';
import { securitySettings } from './security-settings.ts';
import { createSessions, SESSION_CONTROL_CHANNEL } from './sessions.ts';
import { notifyTenantExpiry } from './tenant-expiry.ts';
import { platformAdminIds } from './tenant-expiry-repository.ts';

export { identityEvents } from './events.ts';

/** Identity and access: tenants, users, RBAC, sessions and sign-in. */
export function createIdentityModule(ctx: AppContext, deps: { notify: Notifier['notify'] }) {
  ctx.settingsRegistry.register(securitySettings);
  const notifyExpiry = (now: Date) => notifyTenantExpiry({ db: ctx.db, notify: deps.notify }, now);
  registerSystemTasks(ctx.jobs, { clock: ctx.clock, notifyTenantExpiry: notifyExpiry });
  const sessions = createSessions(ctx);
  const auth = createAuthService(ctx, sessions);

  return {
    resolveAuth: sessions.resolveAuth,
    /** The id of an active-or-not tenant by its code, for public pages (login, public settings). */
    tenantIdByCode: async (code: string) => (await findTenantByCode(ctx.db, code))?.id ?? null,
    sessions,
    auth,
    /** for the notification center: contact details, and announcement audiences */
    userContacts: (tenantId: number | null, ids: number[]) => userContacts(ctx.db, tenantId, ids),
    usersByTargets: (tenantId: number | null, targets: AudienceTarget[]) => usersByTargets(ctx.db, tenantId, targets),
    targetsOfUser: (userId: number) => targetsOfUser(ctx.db, userId),
    missingTargets: (tenantId: number | null, targets: AudienceTarget[]) => missingTargets(ctx.db, tenantId, targets),
    activeUsers: (tenantId: number | null) => activeUsers(ctx.db, tenantId),
    /** who platform-wide alerts go to: the active platform super administrators */
    platformAdmins: () => platformAdminIds(ctx.db),
    /** for the OAuth server: the subject of a grant (null when the user is gone) */
    oauthSubject: (userId: number) => oauthSubject(ctx.db, userId, ctx.clock()),
    async register(app: FastifyInstance) {
      authRoutes(app, ctx, auth, sessions);
      usersRoutes(app, ctx, sessions, auth);
      rolesRoutes(app, ctx, sessions);
      menusRoutes(app, ctx, sessions);
      tenantsRoutes(app, ctx, sessions);
      permissionsRoutes(app);
      departmentRoutes(app, ctx);
      positionRoutes(app, ctx);
      userGroupRoutes(app, ctx);
      loginLogRoutes(app, ctx);
      onlineSessionRoutes(app, ctx, sessions);
      profileRoutes(app, ctx);
      // A session revoked on any instance closes its live sockets here too.
      await ctx.cache.subscribe(SESSION_CONTROL_CHANNEL, (raw) => {
        const { revoked } = JSON.parse(raw) as { revoked: number[] };
        for (const id of revoked) ctx.realtime.disconnectSession(id);
      });
    },
  };
}

export type IdentityModule = ReturnType<typeof createIdentityModule>;
