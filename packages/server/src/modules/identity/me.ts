import { and, eq, inArray } from 'drizzle-orm';
import type { UserPrincipal } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { findTenantById, findUserById } from './auth-repository.ts';
import { buildTree } from './menu-tree.ts';
import { menus, roleMenus, roles, userRoles } from './tables.ts';

/** The signed-in user with roles, permissions and the menu tree the console renders. */
export async function currentUser(db: Db, p: UserPrincipal) {
  const user = await findUserById(db, p.userId);
  if (!user) throw httpErrors.unauthenticated();
  const tenant = user.tenantId === null ? null : await findTenantById(db, user.tenantId);
  const roleRows = await db
    .select({ id: roles.id, code: roles.code, name: roles.name })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(and(eq(userRoles.userId, user.id), eq(roles.status, 'active')));

  let menuRows: (typeof menus.$inferSelect)[];
  if (p.isSuper) {
    menuRows = await db.select().from(menus).where(eq(menus.status, 'active'));
  } else if (roleRows.length) {
    const ids = await db
      .selectDistinct({ id: roleMenus.menuId })
      .from(roleMenus)
      .where(
        inArray(
          roleMenus.roleId,
          roleRows.map((r) => r.id),
        ),
      );
    const all = await db.select().from(menus).where(eq(menus.status, 'active'));
    // A bound node brings its ancestors along, so the tree never has holes.
    const byId = new Map(all.map((m) => [m.id, m]));
    const keep = new Set<number>();
    for (const { id } of ids) {
      for (let m = byId.get(id); m && !keep.has(m.id); m = m.parentId === null ? undefined : byId.get(m.parentId))
        keep.add(m.id);
    }
    menuRows = all.filter((m) => keep.has(m.id));
  } else {
    menuRows = [];
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
}
