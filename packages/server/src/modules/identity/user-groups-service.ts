import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import type { UserGroupRow } from './user-groups-repository.ts';
import * as repo from './user-groups-repository.ts';

/**
 * User groups: named sets of users of one tenant, used as grant subjects (the drive grants
 * roles to a user, a department or a group). Members are always users of the group's tenant.
 */
type TenantScope = Pick<Scope, 'tenantId'>;

export type UserGroupCreate = { name: string; remark?: string };
export type UserGroupUpdate = Partial<UserGroupCreate>;

const uniqueName = <T>(write: () => Promise<T>) =>
  onUniqueViolation(write, () => identityErrors.conflict('user_group', 'name'));

export function createUserGroupsService({ db, clock }: Pick<AppContext, 'db' | 'clock'>) {
  async function withMemberCounts(rows: UserGroupRow[]) {
    const counts = await repo.memberCounts(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({ ...r, memberCount: counts.get(r.id) ?? 0 }));
  }

  async function get(scope: TenantScope, id: number) {
    const row = await repo.groupsTable.findById(db, scope, id);
    if (!row) throw identityErrors.notFound('user_group');
    const [withCount] = await withMemberCounts([row]);
    return withCount as NonNullable<typeof withCount>;
  }

  return {
    async list(scope: TenantScope, q: PageRequest & { keyword?: string }) {
      const page = await repo.listUserGroups(db, scope, q);
      return { ...page, list: await withMemberCounts(page.list) };
    },

    get,

    async create(scope: TenantScope, input: UserGroupCreate) {
      const row = await uniqueName(() =>
        repo.groupsTable.insert(db, scope, { name: input.name, remark: input.remark ?? '' }),
      );
      return { ...row, memberCount: 0 };
    },

    async update(scope: TenantScope, id: number, input: UserGroupUpdate) {
      const row = await uniqueName(() => repo.groupsTable.update(db, scope, id, { ...input, updatedAt: clock() }));
      if (!row) throw identityErrors.notFound('user_group');
      return get(scope, id);
    },

    async remove(scope: TenantScope, id: number): Promise<void> {
      const [deleted] = await repo.groupsTable.deleteMany(db, scope, [id]);
      if (deleted === undefined) throw identityErrors.notFound('user_group');
    },

    async members(scope: TenantScope, id: number, q: PageRequest) {
      await get(scope, id);
      return repo.groupMembers(db, id, q);
    },

    /**
     * Replaces the members of a group. Every user must belong to the caller's tenant (400 naming
     * `userIds.N`). The group row is locked first, so two concurrent replacements apply one after the other.
     */
    async replaceMembers(scope: TenantScope, id: number, userIds: number[]) {
      return db.transaction(async (tx) => {
        if (!(await repo.lockGroup(tx, scope, id))) throw identityErrors.notFound('user_group');
        const known = await repo.tenantUserIds(tx, scope, userIds);
        const errors: FieldError[] = [];
        userIds.forEach((userId, i) => {
          if (!known.has(userId)) errors.push({ field: `userIds.${i}`, message: `no user ${userId} in this tenant` });
        });
        if (errors.length) throw httpErrors.validation(errors);
        await repo.replaceGroupMembers(tx, scope, id, userIds);
        await repo.groupsTable.update(tx, scope, id, { updatedAt: clock() });
        return { userIds: [...userIds].sort((a, b) => a - b) };
      });
    },
  };
}

export type UserGroupsService = ReturnType<typeof createUserGroupsService>;
