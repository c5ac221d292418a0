import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { userGroupMembers, userGroups, users } from './tables.ts';

/** Queries of user groups and their members. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type UserGroupRow = typeof userGroups.$inferSelect;

export const groupsTable = scoped(userGroups);
const tenantUsers = scoped(users);

export function listUserGroups(db: Db, scope: TenantScope, q: PageRequest & { keyword?: string }) {
  const filter = q.keyword ? contains(userGroups.name, q.keyword) : undefined;
  return groupsTable.page(db, scope, q, filter, desc(userGroups.id));
}

/** Member count per group id (groups without members are absent). */
export async function memberCounts(db: Db, groupIds: number[]): Promise<Map<number, number>> {
  if (groupIds.length === 0) return new Map();
  const counts = await db
    .select({ groupId: userGroupMembers.groupId, n: count() })
    .from(userGroupMembers)
    .where(inArray(userGroupMembers.groupId, groupIds))
    .groupBy(userGroupMembers.groupId);
  return new Map(counts.map((c) => [c.groupId, Number(c.n)]));
}

export async function groupMembers(db: Db, id: number, q: PageRequest) {
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

/** Locks the group row for the rest of the transaction; false when it is not in the scope's tenant. */
export async function lockGroup(tx: Db, scope: TenantScope, id: number): Promise<boolean> {
  const [group] = await tx
    .select({ id: userGroups.id })
    .from(userGroups)
    .where(groupsTable.where(scope, eq(userGroups.id, id)))
    .for('update');
  return group !== undefined;
}

/** The ids among `userIds` that are users of the scope's tenant. */
export async function tenantUserIds(db: Db, scope: TenantScope, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const found = await db
    .select({ id: users.id })
    .from(users)
    .where(tenantUsers.where(scope, inArray(users.id, userIds)));
  return new Set(found.map((u) => u.id));
}

/** Replaces the members of a group of the scope's tenant; the links carry the group's tenant. */
export async function replaceGroupMembers(db: Db, scope: TenantScope, groupId: number, userIds: number[]) {
  const tenantId = platformKey(scope.tenantId);
  await db
    .delete(userGroupMembers)
    .where(and(eq(userGroupMembers.tenantId, tenantId), eq(userGroupMembers.groupId, groupId)));
  if (userIds.length)
    await db.insert(userGroupMembers).values(userIds.map((userId) => ({ tenantId, groupId, userId })));
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
