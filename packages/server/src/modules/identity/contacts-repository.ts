import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { tenantFilter } from '../../platform/db/scoped.ts';
import { sameTenantKey } from '../../platform/db/tenant-key.ts';
import type { AudienceTarget, ContactRow } from '../messaging/index.ts';
import { departments, roles, userRoles, users } from './tables.ts';

/** Queries of the notification center: contacts and audiences. */

/**
 * Contacts of the given users of one tenant (null = platform users), in the shape the notification
 * center declares; other tenants' ids are absent, disabled users are returned too (marked).
 */
export async function userContacts(db: Db, tenantId: number | null, ids: number[]): Promise<ContactRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      id: users.id,
      tenantId: users.tenantId,
      name: users.nickname,
      email: users.email,
      phone: users.phone,
      status: users.status,
    })
    .from(users)
    .where(and(inArray(users.id, ids), sameTenantKey(users.tenantId, tenantId)));
  return rows.map(({ status, ...r }) => ({ ...r, active: status === 'active' }));
}

/** Active users of a tenant reached by explicit ids, roles, or departments including sub-departments. */
export async function usersByTargets(db: Db, tenantId: number | null, targets: AudienceTarget[]): Promise<number[]> {
  const of = (type: AudienceTarget['type']) => targets.filter((t) => t.type === type).map((t) => t.id);
  const [userIds, roleIds, deptIds] = [of('user'), of('role'), of('dept')];
  const reach = [];
  if (userIds.length) reach.push(inArray(users.id, userIds));
  if (roleIds.length)
    reach.push(
      inArray(users.id, db.select({ id: userRoles.userId }).from(userRoles).where(inArray(userRoles.roleId, roleIds))),
    );
  if (deptIds.length)
    reach.push(
      inArray(
        users.departmentId,
        db
          .select({ id: departments.id })
          .from(departments)
          .where(
            or(
              inArray(departments.id, deptIds),
              sql`${departments.ancestorIds} && ${sql.raw(`'{${deptIds.map(Number).join(',')}}'::integer[]`)}`,
            ),
          ),
      ),
    );
  if (reach.length === 0) return [];
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(sameTenantKey(users.tenantId, tenantId), eq(users.status, 'active'), or(...reach)))
    .orderBy(users.id);
  return rows.map((r) => r.id);
}

/** Every active user of a tenant (null = platform users): the audience of a message to all. */
export async function activeUsers(db: Db, tenantId: number | null): Promise<number[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(tenantFilter(users, { tenantId }), eq(users.status, 'active')))
    .orderBy(users.id);
  return rows.map((r) => r.id);
}

const targetTables = { user: users, role: roles, dept: departments } as const;

/** The targets whose user, role or department is not a row of this tenant (null = platform). */
export async function missingTargets(
  db: Db,
  tenantId: number | null,
  targets: AudienceTarget[],
): Promise<AudienceTarget[]> {
  const found = new Set<string>();
  for (const type of ['user', 'role', 'dept'] as const) {
    const ids = targets.filter((t) => t.type === type).map((t) => t.id);
    if (ids.length === 0) continue;
    const table = targetTables[type];
    const rows = await db
      .select({ id: table.id })
      .from(table)
      .where(and(tenantFilter(table, { tenantId }), inArray(table.id, ids)));
    for (const r of rows) found.add(`${type}:${r.id}`);
  }
  return targets.filter((t) => !found.has(`${t.type}:${t.id}`));
}

/** The targets one user matches: their own id, their roles, their department and its ancestors. */
export async function targetsOfUser(db: Db, userId: number): Promise<AudienceTarget[]> {
  const [user] = await db.select({ departmentId: users.departmentId }).from(users).where(eq(users.id, userId));
  if (!user) return [];
  const roles = await db.select({ id: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, userId));
  const out: AudienceTarget[] = [
    { type: 'user', id: userId },
    ...roles.map((r) => ({ type: 'role' as const, id: r.id })),
  ];
  if (user.departmentId !== null) {
    const [dept] = await db
      .select({ ancestorIds: departments.ancestorIds })
      .from(departments)
      .where(eq(departments.id, user.departmentId));
    for (const id of [...(dept?.ancestorIds ?? []), user.departmentId]) out.push({ type: 'dept', id });
  }
  return out;
}
