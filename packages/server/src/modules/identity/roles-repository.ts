import { and, asc, eq, inArray, isNotNull, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { menus, roleMenus, roles, userRoles } from './tables.ts';

/** Queries of roles and their menu bindings. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type RoleRow = typeof roles.$inferSelect;
export type RoleStatus = RoleRow['status'];

export const rolesTable = scoped(roles);

export function listRoles(db: Db, scope: TenantScope, page: PageRequest, f: { keyword?: string; status?: RoleStatus }) {
  const conds: (SQL | undefined)[] = [];
  if (f.keyword) conds.push(or(contains(roles.code, f.keyword), contains(roles.name, f.keyword)));
  if (f.status) conds.push(eq(roles.status, f.status));
  return rolesTable.page(db, scope, page, conds.length ? and(...conds) : undefined, roles.sort);
}

export async function menuIdsOfRole(db: Db, roleId: number): Promise<number[]> {
  const rows = await db
    .select({ id: roleMenus.menuId })
    .from(roleMenus)
    .where(eq(roleMenus.roleId, roleId))
    .orderBy(roleMenus.menuId);
  return rows.map((r) => r.id);
}

/** The distinct menu ids bound to any of the roles. */
export async function menuIdsOfRoles(db: Db, roleIds: number[]): Promise<number[]> {
  if (roleIds.length === 0) return [];
  const rows = await db
    .selectDistinct({ id: roleMenus.menuId })
    .from(roleMenus)
    .where(inArray(roleMenus.roleId, roleIds));
  return rows.map((r) => r.id);
}

/** Replaces the menus of a role of the scope's tenant; the links carry the role's tenant. */
export async function replaceRoleMenus(db: Db, scope: TenantScope, roleId: number, menuIds: number[]) {
  const tenantId = platformKey(scope.tenantId);
  await db.delete(roleMenus).where(and(eq(roleMenus.tenantId, tenantId), eq(roleMenus.roleId, roleId)));
  if (menuIds.length) await db.insert(roleMenus).values(menuIds.map((menuId) => ({ tenantId, roleId, menuId })));
}

/** The active roles a user holds. */
export function activeRolesOfUser(db: Db, userId: number) {
  return db
    .select({ id: roles.id, code: roles.code, name: roles.name })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(and(eq(userRoles.userId, userId), eq(roles.status, 'active')));
}

/** Every role a user holds, disabled ones too, in the roles' display order. */
export function rolesOfUser(db: Db, userId: number) {
  return db
    .select({ id: roles.id, code: roles.code, name: roles.name, status: roles.status, permissions: roles.permissions })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(eq(userRoles.userId, userId))
    .orderBy(asc(roles.sort), asc(roles.id));
}

/** Per role, the codes its bound menu nodes carry; a disabled node carries none (as sign-in counts them). */
export function menuCodesOfRoles(db: Db, roleIds: number[]): Promise<{ roleId: number; code: string | null }[]> {
  if (roleIds.length === 0) return Promise.resolve([]);
  return db
    .selectDistinct({ roleId: roleMenus.roleId, code: menus.permission })
    .from(roleMenus)
    .innerJoin(menus, eq(menus.id, roleMenus.menuId))
    .where(and(inArray(roleMenus.roleId, roleIds), eq(menus.status, 'active'), isNotNull(menus.permission)));
}
