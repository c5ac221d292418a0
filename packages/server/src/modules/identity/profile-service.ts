import { type Scope, type UserPrincipal, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { findTenantById, findUserById } from './auth-repository.ts';
import type { LoginLogsService } from './login-logs-service.ts';
import { navigationOf } from './navigation.ts';
import type { OnlineSessionsService } from './online-sessions-service.ts';
import { activeRolesOfUser } from './roles-repository.ts';

function signedIn(scope: Scope): UserPrincipal {
  const p = userOf(scope);
  if (!p) throw httpErrors.unauthenticated();
  return p;
}

/**
 * The signed-in user's own view: who they are (with roles, permissions and the menu tree the
 * console renders) and their own records (profile tabs). Records are read in the user's own
 * tenant, not the request scope, so a super administrator working inside a tenant (X-Tenant-Id)
 * still sees their platform-level records.
 */
export function createProfileService({
  db,
  loginLogs,
  onlineSessions,
}: Pick<AppContext, 'db'> & { loginLogs: LoginLogsService; onlineSessions: OnlineSessionsService }) {
  return {
    async me(scope: Scope) {
      const p = signedIn(scope);
      const user = await findUserById(db, p.userId);
      if (!user) throw httpErrors.unauthenticated();
      const tenant = user.tenantId === null ? null : await findTenantById(db, user.tenantId);
      const roleRows = await activeRolesOfUser(db, user.id);
      const tree = await navigationOf(db, {
        isSuper: p.isSuper,
        activeRoleIds: roleRows.map((r) => r.id),
      });
      return {
        user: {
          id: user.id,
          username: user.username,
          nickname: user.nickname,
          email: user.email,
          phone: user.phone,
          tenantId: user.tenantId,
          departmentId: user.departmentId,
          isSuper: user.isSuper,
          lastLoginAt: user.lastLoginAt,
        },
        tenant: tenant ? { id: tenant.id, code: tenant.code, name: tenant.name } : null,
        roles: roleRows,
        permissions: p.isSuper ? ['*'] : [...p.permissions].sort(),
        menus: tree,
      };
    },

    loginLogs(scope: Scope, page: PageRequest) {
      const p = signedIn(scope);
      return loginLogs.list({ tenantId: p.tenantId }, { ...page, userId: p.userId });
    },

    async sessions(scope: Scope, page: PageRequest) {
      const p = signedIn(scope);
      const found = await onlineSessions.list({ tenantId: p.tenantId }, { ...page, userId: p.userId });
      return { ...found, list: found.list.map((s) => ({ ...s, current: s.id === p.sessionId })) };
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
