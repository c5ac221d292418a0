import { count, desc, eq, inArray } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains, onUniqueViolation } from '../../platform/db/sql.ts';
import { type FieldError, httpErrors } from '../../platform/http/errors.ts';
import { identityErrors } from './errors.ts';
import { userGroupMembers, userGroups, users } from './tables.ts';

/**
 * User groups: named sets of users of one tenant, used as grant subjects (the drive grants
 * roles to a user, a department or a group). Members are always users of the group's tenant.
 */
type TenantScope = Pick<Scope, 'tenantId'>;

const groups = scoped(userGroups);
const tenantUsers = scoped(users);

export type UserGroupCreate = { name: string; remark?: string };
export type UserGroupUpdate = Partial<UserGroupCreate>;

async function withMemberCounts(db: Db, rows: (typeof userGroups.$inferSelect)[]) {
  if (rows.length === 0) return [];
  const counts = await db
    .select({ groupId: userGroupMembers.groupId, n: count() })
    .from(userGroupMembers)
    .where(
      inArray(
        userGroupMembers.groupId,
        rows.map((r) => r.id),
      ),
    )
    .groupBy(userGroupMembers.groupId);
  const byId = new Map(counts.map((c) => [c.groupId, Number(c.n)]));
  return rows.map((r) => ({ ...r, memberCount: byId.get(r.id) ?? 0 }));
}

export async function listUserGroups(db: Db, scope: TenantScope, q: PageRequest & { keyword?: string }) {
  const filter = q.keyword ? contains(userGroups.name, q.keyword) : undefined;
  const page = await groups.page(db, scope, q, filter, desc(userGroups.id));
  return { ...page, list: await withMemberCounts(db, page.list) };
}

export async function getUserGroup(db: Db, scope: TenantScope, id: number) {
  const row = await groups.findById(db, scope, id);
  if (!row) throw identityErrors.notFound('user_group');
  const [withCount] = await withMemberCounts(db, [row]);
  return withCount as NonNullable<typeof withCount>;
}

export async function createUserGroup(db: Db, scope: TenantScope, input: UserGroupCreate) {
  const row = await uniqueName(() => groups.insert(db, scope, { name: input.name, remark: input.remark ?? '' }));
  return { ...row, memberCount: 0 };
}

export async function updateUserGroup(db: Db, scope: TenantScope, id: number, input: UserGroupUpdate, now: Date) {
  const row = await uniqueName(() => groups.update(db, scope, id, { ...input, updatedAt: now }));
  if (!row) throw identityErrors.notFound('user_group');
  return getUserGroup(db, scope, id);
}

export async function deleteUserGroup(db: Db, scope: TenantScope, id: number): Promise<void> {
  const [deleted] = await groups.deleteMany(db, scope, [id]);
  if (deleted === undefined) throw identityErrors.notFound('user_group');
}

export async function groupMembers(db: Db, scope: TenantScope, id: number, q: PageRequest) {
  await getUserGroup(db, scope, id);
  const cond = eq(userGroupMembers.groupId, id);
  const [list, totals] = await Promise.all([
    db
      .select({ id: users.id, username: users.username, nickname: users.nickname })
      .from(userGroupMembers)
      .innerJoin(users, eq(users.id, userGroupMembers.userId))
      .where(cond)
      .orderBy(users.id)
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(userGroupMembers).where(cond),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/**
 * Replaces the members of a group. Every user must belong to the caller's tenant (400 naming
 * `userIds.N`). The group row is locked first, so two concurrent replacements apply one after the other.
 */
export async function replaceGroupMembers(db: Db, scope: TenantScope, id: number, userIds: number[], now: Date) {
  return db.transaction(async (tx) => {
    const [group] = await tx
      .select({ id: userGroups.id })
      .from(userGroups)
      .where(groups.where(scope, eq(userGroups.id, id)))
      .for('update');
    if (!group) throw identityErrors.notFound('user_group');
    if (userIds.length) {
      const found = await tx
        .select({ id: users.id })
        .from(users)
        .where(tenantUsers.where(scope, inArray(users.id, userIds)));
      const known = new Set(found.map((u) => u.id));
      const errors: FieldError[] = [];
      userIds.forEach((userId, i) => {
        if (!known.has(userId)) errors.push({ field: `userIds.${i}`, message: `no user ${userId} in this tenant` });
      });
      if (errors.length) throw httpErrors.validation(errors);
    }
    await tx.delete(userGroupMembers).where(eq(userGroupMembers.groupId, id));
    if (userIds.length) await tx.insert(userGroupMembers).values(userIds.map((userId) => ({ groupId: id, userId })));
    await groups.update(tx, scope, id, { updatedAt: now });
    return { userIds: [...userIds].sort((a, b) => a - b) };
  });
}

/** Groups a user belongs to: grant subjects for the drive. */
export async function groupIdsOfUser(db: Db, userId: number): Promise<number[]> {
  const rows = await db
    .select({ groupId: userGroupMembers.groupId })
    .from(userGroupMembers)
    .where(eq(userGroupMembers.userId, userId))
    .orderBy(userGroupMembers.groupId);
  return rows.map((r) => r.groupId);
}

const uniqueName = <T>(write: () => Promise<T>) =>
  onUniqueViolation(write, () => identityErrors.conflict('user_group', 'name'));
