import { arrayContains, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { AppError, type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import { buildTree } from './menu-tree.ts';
import { departments, users } from './tables.ts';

/**
 * The department tree of a tenant. Each row keeps `ancestor_ids` (root first), so "a department
 * and its sub-departments" is one GIN-indexed lookup (`ancestor_ids @> {id}`) instead of a
 * recursive walk; the drive's department spaces rely on it.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

const depts = scoped(departments);
const tenantUsers = scoped(users);

export type Department = typeof departments.$inferSelect;
export type DepartmentCreate = {
  name: string;
  parentId?: number | null;
  headUserId?: number | null;
  sort?: number;
  status?: Status;
};
export type DepartmentUpdate = Partial<DepartmentCreate>;

const departmentErrors = {
  hasChildren: () =>
    new AppError(
      409,
      'identity.department_has_children',
      'The department has sub-departments; move or delete them first',
    ),
  hasUsers: () => new AppError(409, 'identity.department_has_users', 'Users belong to the department; move them first'),
};

/** Advisory lock namespace of department tree writes ("dept"). */
const TREE_LOCK = 0x64657074;

/**
 * Serializes create, move and delete within one tenant's tree for the rest of the transaction:
 * two concurrent moves could otherwise build a cycle or leave a subtree with stale ancestor_ids.
 */
async function lockTree(tx: Db, scope: TenantScope): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${TREE_LOCK}, ${scope.tenantId ?? 0})`);
}

async function checkHead(db: Db, scope: TenantScope, headUserId: number | null | undefined, errors: FieldError[]) {
  if (headUserId == null) return;
  if (!(await tenantUsers.findById(db, scope, headUserId))) {
    errors.push({ field: 'headUserId', message: 'no such user in this tenant' });
  }
}

export async function departmentTree(db: Db, scope: TenantScope) {
  return buildTree(await depts.findMany(db, scope));
}

export async function getDepartment(db: Db, scope: TenantScope, id: number): Promise<Department> {
  const row = await depts.findById(db, scope, id);
  if (!row) throw identityErrors.notFound('department');
  return row;
}

export async function createDepartment(db: Db, scope: TenantScope, input: DepartmentCreate): Promise<Department> {
  return db.transaction(async (tx) => {
    await lockTree(tx, scope);
    const errors: FieldError[] = [];
    let ancestorIds: number[] = [];
    if (input.parentId != null) {
      const parent = await depts.findById(tx, scope, input.parentId);
      if (parent) ancestorIds = [...parent.ancestorIds, parent.id];
      else errors.push({ field: 'parentId', message: 'no such department in this tenant' });
    }
    await checkHead(tx, scope, input.headUserId, errors);
    if (errors.length) throw httpErrors.validation(errors);
    return depts.insert(tx, scope, {
      name: input.name,
      parentId: input.parentId ?? null,
      ancestorIds,
      headUserId: input.headUserId ?? null,
      sort: input.sort ?? 0,
      status: input.status ?? 'active',
    });
  });
}

/**
 * Changes a department; a new `parentId` moves it with its whole subtree. The subtree's
 * ancestor_ids are rewritten in the same transaction: the old prefix up to and including the
 * moved department is replaced by the new one.
 */
export async function updateDepartment(db: Db, scope: TenantScope, id: number, input: DepartmentUpdate, now: Date) {
  return db.transaction(async (tx) => {
    await lockTree(tx, scope);
    const current = await getDepartment(tx, scope, id);
    const errors: FieldError[] = [];
    const moving = input.parentId !== undefined && input.parentId !== current.parentId;
    let ancestorIds = current.ancestorIds;
    if (moving && input.parentId === null) ancestorIds = [];
    if (moving && input.parentId != null) {
      const parent = await depts.findById(tx, scope, input.parentId);
      if (!parent) errors.push({ field: 'parentId', message: 'no such department in this tenant' });
      else if (parent.id === id || parent.ancestorIds.includes(id)) {
        errors.push({
          field: 'parentId',
          message: 'cannot move a department under itself or one of its sub-departments',
        });
      } else ancestorIds = [...parent.ancestorIds, parent.id];
    }
    await checkHead(tx, scope, input.headUserId, errors);
    if (errors.length) throw httpErrors.validation(errors);

    const updated = await depts.update(tx, scope, id, {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.headUserId !== undefined ? { headUserId: input.headUserId } : {}),
      ...(input.sort !== undefined ? { sort: input.sort } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(moving ? { parentId: input.parentId ?? null, ancestorIds } : {}),
      updatedAt: now,
    });
    if (moving) {
      const prefix = intArray([...ancestorIds, id]);
      const col = departments.ancestorIds;
      await tx
        .update(departments)
        .set({ ancestorIds: sql`${prefix} || (${col})[array_position(${col}, ${id}) + 1:]`, updatedAt: now })
        .where(depts.where(scope, arrayContains(col, [id])));
    }
    return updated as Department;
  });
}

/** Deletes a leaf department that no user belongs to. */
export async function deleteDepartment(db: Db, scope: TenantScope, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    await lockTree(tx, scope);
    await getDepartment(tx, scope, id);
    const [child] = await tx
      .select({ id: departments.id })
      .from(departments)
      .where(depts.where(scope, eq(departments.parentId, id)))
      .limit(1);
    if (child) throw departmentErrors.hasChildren();
    const [member] = await tx
      .select({ id: users.id })
      .from(users)
      .where(tenantUsers.where(scope, eq(users.departmentId, id)))
      .limit(1);
    if (member) throw departmentErrors.hasUsers();
    await depts.deleteMany(tx, scope, [id]);
  });
}

/** Ids of a department and all its sub-departments (empty when the department is not in the scope's tenant). */
export async function subtreeIds(db: Db, scope: TenantScope, deptId: number): Promise<number[]> {
  const rows = await db
    .select({ id: departments.id })
    .from(departments)
    .where(depts.where(scope, or(eq(departments.id, deptId), arrayContains(departments.ancestorIds, [deptId]))));
  return rows.map((r) => r.id);
}

/** The head user of a department, or null (no head, or no such department in the tenant). */
export async function departmentHead(db: Db, scope: TenantScope, deptId: number): Promise<number | null> {
  const [row] = await db
    .select({ headUserId: departments.headUserId })
    .from(departments)
    .where(depts.where(scope, eq(departments.id, deptId)))
    .limit(1);
  return row?.headUserId ?? null;
}

/** Users of a department (or of its whole subtree), paged, in brief. */
export async function departmentUsers(
  db: Db,
  scope: TenantScope,
  id: number,
  q: PageRequest & { includeSubDepartments?: boolean },
) {
  await getDepartment(db, scope, id);
  const ids = q.includeSubDepartments ? await subtreeIds(db, scope, id) : [id];
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

function intArray(values: number[]): SQL {
  return sql`ARRAY[${sql.join(
    values.map((v) => sql`${v}::integer`),
    sql`, `,
  )}]::integer[]`;
}
