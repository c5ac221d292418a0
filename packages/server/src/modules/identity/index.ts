import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { createCredentialCookies } from '../../platform/http/credential-cookies.ts';
import type { Notifier } from '../messaging/index.ts';
import { createAuthService } from './auth-service.ts';
import { createDepartmentsService } from './departments-service.ts';
import { createDirectoryService } from './directory-service.ts';
import { identityJobs } from './jobs.ts';
import { createLoginLogsService } from './login-logs-service.ts';
import { createMenusService } from './menus-service.ts';
import { createOnlineSessionsService } from './online-sessions-service.ts';
import { createPositionsService } from './positions-service.ts';
import { createProfileService } from './profile-service.ts';
import { createRefreshCookie } from './refresh-cookie.ts';
import { createRolesService } from './roles-service.ts';
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
import { createTenantsService } from './tenants-service.ts';
import { createUserGroupsService } from './user-groups-service.ts';
import { createUserPermissionsService } from './user-permissions-service.ts';
import { createUsersService } from './users-service.ts';

export { identityEvents } from './events.ts';
export { type PasswordResetTarget, resetPasswords } from './password-reset-service.ts';
export { DEMO_TENANT, seedIdentity } from './seed-service.ts';

/** Identity and access: tenants, users, RBAC, sessions and sign-in. */
export function createIdentityModule(ctx: AppContext, deps: { notify: Notifier['notify'] }) {
  ctx.settingsRegistry.register(securitySettings);
  ctx.jobs.register(identityJobs, () => ({
    clock: ctx.clock,
    notifyTenantExpiry: (now: Date) => notifyTenantExpiry({ db: ctx.db, notify: deps.notify }, now),
  }));
  const sessions = createSessions(ctx);
  const auth = createAuthService({ ...ctx, sessions });
  const users = createUsersService({ ...ctx, sessions, auth });
  const menus = createMenusService({ ...ctx, sessions });
  const departments = createDepartmentsService(ctx);
  const positions = createPositionsService(ctx);
  const userGroups = createUserGroupsService(ctx);
  const loginLogs = createLoginLogsService(ctx);
  const onlineSessions = createOnlineSessionsService({ ...ctx, sessions });
  const profile = createProfileService({ ...ctx, loginLogs, onlineSessions });
  const directory = createDirectoryService(ctx);
  const refreshCookie = createRefreshCookie({
    cookies: createCredentialCookies(ctx.config),
    sessions,
    refreshTokenTtlSeconds: ctx.config.refreshTokenTtlSeconds,
  });

  return {
    resolveAuth: sessions.resolveAuth,
    sessions,
    auth,
    ...directory,
    async register(app: FastifyInstance) {
      // Read per call: the permission registry is complete only once every route is declared.
      const permissionCodes = () => app.permissionCodes;
      const roles = createRolesService({ ...ctx, sessions, permissionCodes });
      const tenants = createTenantsService({ ...ctx, sessions, permissionCodes });
      authRoutes(app, auth, sessions, profile, ctx.config, refreshCookie);
      usersRoutes(app, users, createUserPermissionsService({ ...ctx, permissionCodes }));
      rolesRoutes(app, roles);
      menusRoutes(app, menus);
      tenantsRoutes(app, tenants);
      permissionsRoutes(app, roles);
      departmentRoutes(app, departments);
      positionRoutes(app, positions);
      userGroupRoutes(app, userGroups);
      loginLogRoutes(app, loginLogs);
      onlineSessionRoutes(app, onlineSessions);
      profileRoutes(app, profile);
      // A session revoked on any instance closes its live sockets here too.
      await ctx.cache.subscribe(SESSION_CONTROL_CHANNEL, (raw) => {
        const { revoked } = JSON.parse(raw) as { revoked: number[] };
        for (const id of revoked) ctx.realtime.disconnectSession(id);
      });
      // Back from a Redis outage: revocations and permission changes made meanwhile could not
      // reach the cached principals, so every instance reloads them.
      ctx.cache.watch((e) => {
        if (e.type === 'resync')
          sessions
            .invalidatePermissions()
            .catch((err) => ctx.log.warn({ err }, 'identity: epoch bump after a Redis outage failed'));
      });
    },
  };
}

export type IdentityModule = ReturnType<typeof createIdentityModule>;
