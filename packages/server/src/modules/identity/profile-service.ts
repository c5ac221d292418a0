import { type Scope, type UserPrincipal, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { findTenantById, findUserById } from './auth-repository.ts';
import type { LoginLogsService } from './login-logs-service.ts';
import { buildTree } from './menu-tree.ts';
import { activeMenus, type MenuRow } from './menus-repository.ts';
import type { OnlineSessionsService } from './online-sessions-service.ts';
import { activeRolesOfUser, menuIdsOfRoles } from './roles-repository.ts';

function signedIn(scope: Scope): UserPrincipal {
  const p = userOf(scope);
  if (!p) throw httpErrors.unauthenticated();
  return p;
}

/** The menu nodes of a user's roles; a bound node brings its ancestors along, so the tree never has holes. */
function withAncestors(all: MenuRow[], boundIds: number[]): MenuRow[] {
  const byId = new Map(all.map((m) => [m.id, m]));
  const keep = new Set<number>();
  for (const id of boundIds) {
    for (let m = byId.get(id); m && !keep.has(m.id); m = m.parentId === null ? undefined : byId.get(m.parentId))
      keep.add(m.id);
  }
  return all.filter((m) => keep.has(m.id));
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
      let menuRows: MenuRow[] = [];
      if (p.isSuper) menuRows = await activeMenus(db);
      else if (roleRows.length) {
        const bound = await menuIdsOfRoles(
          db,
          roleRows.map((r) => r.id),
        );
        menuRows = withAncestors(await activeMenus(db), bound);
      }
      const tree = buildTree(
        menuRows.map((m) => ({
          id: m.id,
          parentId: m.parentId,
          type: m.type,
          name: m.name,
          path: m.path,
          component: m.component,
          icon: m.icon,
          permission: m.permission,
          sort: m.sort,
          hidden: m.hidden,
        })),
      );
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
