import { arrayContains, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { intArray } from '../../platform/db/sql.ts';
import { departments, users } from './tables.ts';

/**
 * Queries of the department tree. Each row keeps `ancestor_ids` (root first), so "a department
 * and its sub-departments" is one GIN-indexed lookup (`ancestor_ids @> {id}`) instead of a
 * recursive walk; the drive's department spaces rely on it.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
export type Department = typeof departments.$inferSelect;

export const departmentsTable = scoped(departments);
const tenantUsers = scoped(users);

/** Advisory lock namespace of department tree writes ("dept"). */
const TREE_LOCK = 0x64657074;

/** Serializes tree writes within one tenant for the rest of the transaction. */
export async function lockTree(tx: Db, scope: TenantScope): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${TREE_LOCK}, ${scope.tenantId ?? 0})`);
}

export async function isTenantUser(db: Db, scope: TenantScope, userId: number): Promise<boolean> {
  return (await tenantUsers.findById(db, scope, userId)) !== null;
}

/**
 * Rewrites the ancestor_ids of a moved department's subtree: the old prefix up to and including
 * the moved department is replaced by `newPrefix` (its new ancestors plus itself).
 */
export async function rewriteSubtreeAncestors(tx: Db, scope: TenantScope, id: number, newPrefix: number[], now: Date) {
  const prefix = intArray(newPrefix);
  const col = departments.ancestorIds;
  await tx
    .update(departments)
    .set({ ancestorIds: sql`${prefix} || (${col})[array_position(${col}, ${id}) + 1:]`, updatedAt: now })
    .where(departmentsTable.where(scope, arrayContains(col, [id])));
}

export async function hasSubDepartments(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const [child] = await db
    .select({ id: departments.id })
    .from(departments)
    .where(departmentsTable.where(scope, eq(departments.parentId, id)))
    .limit(1);
  return child !== undefined;
}

export async function hasUsers(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const [member] = await db
    .select({ id: users.id })
    .from(users)
    .where(tenantUsers.where(scope, eq(users.departmentId, id)))
    .limit(1);
  return member !== undefined;
}

/** Ids of a department and all its sub-departments (empty when the department is not in the scope's tenant). */
export async function subtreeIds(db: Db, scope: TenantScope, deptId: number): Promise<number[]> {
  const rows = await db
    .select({ id: departments.id })
    .from(departments)
    .where(
      departmentsTable.where(scope, or(eq(departments.id, deptId), arrayContains(departments.ancestorIds, [deptId]))),
    );
  return rows.map((r) => r.id);
}

/** The head user of a department, or null (no head, or no such department in the tenant). */
export async function departmentHead(db: Db, scope: TenantScope, deptId: number): Promise<number | null> {
  const [row] = await db
    .select({ headUserId: departments.headUserId })
    .from(departments)
    .where(departmentsTable.where(scope, eq(departments.id, deptId)))
    .limit(1);
  return row?.headUserId ?? null;
}

/** Users of the given departments, paged, in brief. */
export async function usersOfDepartments(db: Db, scope: TenantScope, ids: number[], q: PageRequest) {
  const cond: SQL = tenantUsers.where(scope, inArray(users.departmentId, ids)) as SQL;
  const [list, totals] = await Promise.all([
    db
      .select({ id: users.id, username: users.username, nickname: users.nickname })
      .from(users)
      .where(cond)
      .orderBy(users.id)
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(users).where(cond),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}
