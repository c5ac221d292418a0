import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { AppError, type FieldError, httpErrors } from '../../platform/http/errors.ts';
import type { Department } from './departments-repository.ts';
import * as repo from './departments-repository.ts';
import { identityErrors } from './errors.ts';
import { buildTree } from './menu-tree.ts';

/**
 * The department tree of a tenant. Create, move and delete take the tenant's tree lock for their
 * transaction: two concurrent moves could otherwise build a cycle or leave a subtree with stale
 * ancestor_ids.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = 'active' | 'disabled';

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

async function checkHead(db: Db, scope: TenantScope, headUserId: number | null | undefined, errors: FieldError[]) {
  if (headUserId == null) return;
  if (!(await repo.isTenantUser(db, scope, headUserId))) {
    errors.push({ field: 'headUserId', message: 'no such user in this tenant' });
  }
}

async function load(db: Db, scope: TenantScope, id: number): Promise<Department> {
  const row = await repo.departmentsTable.findById(db, scope, id);
  if (!row) throw identityErrors.notFound('department');
  return row;
}

export function createDepartmentsService({ db, clock }: Pick<AppContext, 'db' | 'clock'>) {
  return {
    tree: async (scope: TenantScope) => buildTree(await repo.departmentsTable.findMany(db, scope)),

    get: (scope: TenantScope, id: number) => load(db, scope, id),

    async create(scope: TenantScope, input: DepartmentCreate): Promise<Department> {
      return db.transaction(async (tx) => {
        await repo.lockTree(tx, scope);
        const errors: FieldError[] = [];
        let ancestorIds: number[] = [];
        if (input.parentId != null) {
          const parent = await repo.departmentsTable.findById(tx, scope, input.parentId);
          if (parent) ancestorIds = [...parent.ancestorIds, parent.id];
          else errors.push({ field: 'parentId', message: 'no such department in this tenant' });
        }
        await checkHead(tx, scope, input.headUserId, errors);
        if (errors.length) throw httpErrors.validation(errors);
        return repo.departmentsTable.insert(tx, scope, {
          name: input.name,
          parentId: input.parentId ?? null,
          ancestorIds,
          headUserId: input.headUserId ?? null,
          sort: input.sort ?? 0,
          status: input.status ?? 'active',
        });
      });
    },

    /**
     * Changes a department; a new `parentId` moves it with its whole subtree, whose ancestor_ids
     * are rewritten in the same transaction.
     */
    async update(scope: TenantScope, id: number, input: DepartmentUpdate) {
      const now = clock();
      return db.transaction(async (tx) => {
        await repo.lockTree(tx, scope);
        const current = await load(tx, scope, id);
        const errors: FieldError[] = [];
        const moving = input.parentId !== undefined && input.parentId !== current.parentId;
        let ancestorIds = current.ancestorIds;
        if (moving && input.parentId === null) ancestorIds = [];
        if (moving && input.parentId != null) {
          const parent = await repo.departmentsTable.findById(tx, scope, input.parentId);
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

        const updated = await repo.departmentsTable.update(tx, scope, id, {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.headUserId !== undefined ? { headUserId: input.headUserId } : {}),
          ...(input.sort !== undefined ? { sort: input.sort } : {}),
          ...(input.status !== undefined ? { status: input.status } : {}),
          ...(moving ? { parentId: input.parentId ?? null, ancestorIds } : {}),
          updatedAt: now,
        });
        if (moving) await repo.rewriteSubtreeAncestors(tx, scope, id, [...ancestorIds, id], now);
        return updated as Department;
      });
    },

    /** Deletes a leaf department that no user belongs to. */
    async remove(scope: TenantScope, id: number): Promise<void> {
      await db.transaction(async (tx) => {
        await repo.lockTree(tx, scope);
        await load(tx, scope, id);
        if (await repo.hasSubDepartments(tx, scope, id)) throw departmentErrors.hasChildren();
        if (await repo.hasUsers(tx, scope, id)) throw departmentErrors.hasUsers();
        await repo.departmentsTable.deleteMany(tx, scope, [id]);
      });
    },

    /** Users of a department (or of its whole subtree), paged, in brief. */
    async users(scope: TenantScope, id: number, q: PageRequest & { includeSubDepartments?: boolean }) {
      await load(db, scope, id);
      const ids = q.includeSubDepartments ? await repo.subtreeIds(db, scope, id) : [id];
      return repo.usersOfDepartments(db, scope, ids, q);
    },
  };
}

export type DepartmentsService = ReturnType<typeof createDepartmentsService>;
