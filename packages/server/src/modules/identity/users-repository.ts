import { and, arrayContains, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { tenants } from '../../platform/tenancy/tables.ts';
import { departments, positions, roles, userGroupMembers, userPositions, userRoles, users } from './tables.ts';

/** Queries of the user aggregate: users and their role / position links. */

type TenantScope = Pick<Scope, 'tenantId'>;
export type UserRow = typeof users.$inferSelect;
export type UserStatus = UserRow['status'];

export const usersTable = scoped(users);
const refTables = { role: scoped(roles), position: scoped(positions), department: scoped(departments) };

export type UserFilter = {
  keyword?: string;
  status?: UserStatus;
  departmentId?: number;
  includeSubDepartments?: boolean;
  roleId?: number;
};

function filterOf(db: Db, scope: TenantScope, f: UserFilter): SQL | undefined {
  const conds: (SQL | undefined)[] = [];
  if (f.keyword) {
    const k = f.keyword;
    conds.push(
      or(contains(users.username, k), contains(users.nickname, k), contains(users.phone, k), contains(users.email, k)),
    );
  }
  if (f.status) conds.push(eq(users.status, f.status));
  if (f.departmentId !== undefined) {
    const id = f.departmentId;
    // ancestor_ids holds every ancestor, so the subtree is one GIN lookup.
    conds.push(
      f.includeSubDepartments
        ? inArray(
            users.departmentId,
            db
              .select({ id: departments.id })
              .from(departments)
              .where(
                refTables.department.where(
                  scope,
                  or(eq(departments.id, id), arrayContains(departments.ancestorIds, [id])),
                ),
              ),
          )
        : eq(users.departmentId, id),
    );
  }
  if (f.roleId !== undefined) {
    conds.push(
      inArray(users.id, db.select({ id: userRoles.userId }).from(userRoles).where(eq(userRoles.roleId, f.roleId))),
    );
  }
  const present = conds.filter((c): c is SQL => c !== undefined);
  return present.length ? and(...present) : undefined;
}

export function listUsers(db: Db, scope: TenantScope, page: PageRequest, filter: UserFilter) {
  return usersTable.page(db, scope, page, filterOf(db, scope, filter), users.id);
}

export function findUsersByIds(db: Db, scope: TenantScope, ids: number[]) {
  return usersTable.findMany(db, scope, inArray(users.id, ids));
}

/** Sets the status of the given users of the caller's tenant; returns the ids changed. */
export async function setUsersStatus(db: Db, scope: TenantScope, ids: number[], status: UserStatus, now: Date) {
  const rows = await db
    .update(users)
    .set({ status, updatedAt: now })
    .where(usersTable.where(scope, inArray(users.id, ids)))
    .returning({ id: users.id });
  return rows.map((r) => r.id);
}

export async function linksOf(db: Db, userId: number) {
  const [r, p, g] = await Promise.all([
    db.select({ id: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, userId)).orderBy(userRoles.roleId),
    db
      .select({ id: userPositions.positionId })
      .from(userPositions)
      .where(eq(userPositions.userId, userId))
      .orderBy(userPositions.positionId),
    db
      .select({ id: userGroupMembers.groupId })
      .from(userGroupMembers)
      .where(eq(userGroupMembers.userId, userId))
      .orderBy(userGroupMembers.groupId),
  ]);
  return { roleIds: r.map((x) => x.id), positionIds: p.map((x) => x.id), groupIds: g.map((x) => x.id) };
}

/** Replaces the roles of a user of the scope's tenant; the links carry the user's tenant. */
export async function replaceUserRoles(db: Db, scope: TenantScope, userId: number, roleIds: number[]) {
  const tenantId = platformKey(scope.tenantId);
  await db.delete(userRoles).where(and(eq(userRoles.tenantId, tenantId), eq(userRoles.userId, userId)));
  if (roleIds.length) await db.insert(userRoles).values(roleIds.map((roleId) => ({ tenantId, userId, roleId })));
}

export async function replaceUserPositions(db: Db, scope: TenantScope, userId: number, positionIds: number[]) {
  const tenantId = platformKey(scope.tenantId);
  await db.delete(userPositions).where(and(eq(userPositions.tenantId, tenantId), eq(userPositions.userId, userId)));
  if (positionIds.length)
    await db.insert(userPositions).values(positionIds.map((positionId) => ({ tenantId, userId, positionId })));
}

/** The ids among `ids` that are not rows of `kind` in the caller's tenant. */
export async function missingRefs(
  db: Db,
  scope: TenantScope,
  kind: keyof typeof refTables,
  ids: number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const t = refTables[kind];
  const found = await db
    .select({ id: t.table.id })
    .from(t.table)
    .where(t.where(scope, inArray(t.table.id, ids)));
  const have = new Set(found.map((r) => r.id as number));
  return ids.filter((id) => !have.has(id));
}

/** A user with the status and expiry of their tenant (none for platform users). */
export async function findUserWithTenant(db: Db, userId: number) {
  const [row] = await db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      username: users.username,
      name: users.nickname,
      email: users.email,
      status: users.status,
      tenantStatus: tenants.status,
      tenantExpiresAt: tenants.expiresAt,
      updatedAt: users.updatedAt,
    })
    .from(users)
    .leftJoin(tenants, eq(tenants.id, users.tenantId))
    .where(eq(users.id, userId))
    .limit(1);
  return row ?? null;
}
