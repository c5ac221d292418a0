import { and, arrayContains, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { tenantFilter } from '../../platform/db/scoped.ts';
import type { GrantSubject, GrantSubjects } from '../drive/index.ts';
import { departments, roles, userGroupMembers, userGroups, userRoles, users } from './tables.ts';

/**
 * Identity's answers to the drive: who a user is as a grant subject (their department and its
 * ancestors, the departments they head, their roles and user groups), and which subjects exist.
 */
type Tenant = number | null;

/**
 * Null when the user does not exist in the tenant or is disabled. One statement: the drive asks
 * this on every request.
 */
export async function grantSubjectsOfUser(db: Db, tenantId: Tenant, userId: number): Promise<GrantSubjects | null> {
  const ids = (q: SQL) => sql<number[]>`coalesce(array(${q}), '{}'::int[])`;
  const [row] = await db
    .select({
      departmentId: users.departmentId,
      status: users.status,
      chain: sql<number[] | null>`(select ${departments.ancestorIds} || ${departments.id} from ${departments}
        where ${departments.id} = ${users.departmentId} and ${tenantFilter(departments, { tenantId })})`,
      roleIds: ids(
        sql`select ${userRoles.roleId} from ${userRoles} where ${userRoles.userId} = ${users.id} order by 1`,
      ),
      groupIds: ids(
        sql`select ${userGroupMembers.groupId} from ${userGroupMembers} where ${userGroupMembers.userId} = ${users.id} order by 1`,
      ),
      headOf: ids(
        sql`select ${departments.id} from ${departments} where ${departments.headUserId} = ${users.id} and ${tenantFilter(departments, { tenantId })} order by 1`,
      ),
    })
    .from(users)
    .where(and(tenantFilter(users, { tenantId }), eq(users.id, userId)));
  if (row?.status !== 'active') return null;
  return {
    userId,
    departmentId: row.departmentId,
    departmentIds: row.chain ?? [],
    headOfDepartmentIds: row.headOf,
    roleIds: row.roleIds,
    groupIds: row.groupIds,
  };
}

/** A department and its ancestors (the department last), or null when it is not in the tenant. */
export async function departmentChain(db: Db, tenantId: Tenant, departmentId: number): Promise<number[] | null> {
  const [row] = await db
    .select({ ancestorIds: departments.ancestorIds })
    .from(departments)
    .where(and(tenantFilter(departments, { tenantId }), eq(departments.id, departmentId)));
  return row ? [...row.ancestorIds, departmentId] : null;
}

/** The head of a department of the tenant (null: none, or no such department). */
export async function departmentHead(db: Db, tenantId: Tenant, departmentId: number): Promise<number | null> {
  const [row] = await db
    .select({ headUserId: departments.headUserId })
    .from(departments)
    .where(and(tenantFilter(departments, { tenantId }), eq(departments.id, departmentId)));
  return row?.headUserId ?? null;
}

/** The subjects that exist in the tenant, with a display name. */
export async function describeSubjects(
  db: Db,
  tenantId: Tenant,
  subjects: GrantSubject[],
): Promise<(GrantSubject & { name: string })[]> {
  const ids = (type: GrantSubject['type']) => subjects.filter((s) => s.type === type).map((s) => s.id);
  const out: (GrantSubject & { name: string })[] = [];
  const t = { tenantId };
  const [u, d, r, g] = [ids('user'), ids('department'), ids('role'), ids('group')];
  if (u.length) {
    const rows = await db
      .select({ id: users.id, name: sql<string>`coalesce(nullif(${users.nickname}, ''), ${users.username})` })
      .from(users)
      .where(and(tenantFilter(users, t), inArray(users.id, u)));
    for (const x of rows) out.push({ type: 'user', id: x.id, name: x.name });
  }
  if (d.length) {
    const rows = await db
      .select({ id: departments.id, name: departments.name })
      .from(departments)
      .where(and(tenantFilter(departments, t), inArray(departments.id, d)));
    for (const x of rows) out.push({ type: 'department', id: x.id, name: x.name });
  }
  if (r.length) {
    const rows = await db
      .select({ id: roles.id, name: roles.name })
      .from(roles)
      .where(and(tenantFilter(roles, t), inArray(roles.id, r)));
    for (const x of rows) out.push({ type: 'role', id: x.id, name: x.name });
  }
  if (g.length) {
    const rows = await db
      .select({ id: userGroups.id, name: userGroups.name })
      .from(userGroups)
      .where(and(tenantFilter(userGroups, t), inArray(userGroups.id, g)));
    for (const x of rows) out.push({ type: 'group', id: x.id, name: x.name });
  }
  return out;
}

/** The active users a subject stands for: the user; a department's members with sub-departments; a role's or group's. */
export async function usersOfSubject(db: Db, tenantId: Tenant, subject: GrantSubject): Promise<number[]> {
  const active = and(tenantFilter(users, { tenantId }), eq(users.status, 'active'));
  let rows: { id: number }[];
  switch (subject.type) {
    case 'user':
      rows = await db
        .select({ id: users.id })
        .from(users)
        .where(and(active, eq(users.id, subject.id)));
      break;
    case 'department': {
      const sub = db
        .select({ id: departments.id })
        .from(departments)
        .where(and(tenantFilter(departments, { tenantId }), arrayContains(departments.ancestorIds, [subject.id])));
      rows = await db
        .select({ id: users.id })
        .from(users)
        .where(and(active, sql`(${users.departmentId} = ${subject.id} or ${users.departmentId} in ${sub})`));
      break;
    }
    case 'role':
      rows = await db
        .select({ id: users.id })
        .from(users)
        .innerJoin(userRoles, eq(userRoles.userId, users.id))
        .where(and(active, eq(userRoles.roleId, subject.id)));
      break;
    case 'group':
      rows = await db
        .select({ id: users.id })
        .from(users)
        .innerJoin(userGroupMembers, eq(userGroupMembers.userId, users.id))
        .where(and(active, eq(userGroupMembers.groupId, subject.id)));
      break;
  }
  return rows.map((r) => r.id);
}
