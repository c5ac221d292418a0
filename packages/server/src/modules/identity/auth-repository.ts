import { and, eq, gt, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { PLATFORM_TENANT_ID, platformKey, sameTenantKey } from '../../platform/db/tenant-key.ts';
import { tenants } from '../../platform/tenancy/tables.ts';
import { menus, refreshTokens, roleMenus, roles, userRoles, userSessions, users } from './tables.ts';

/** Queries of sign-in, sessions and effective permissions. */

/** A tenant by its code; the platform tenant (0) is no tenant to sign into or act in. */
export async function findTenantByCode(db: Db, code: string) {
  const [t] = await db
    .select()
    .from(tenants)
    .where(and(eq(tenants.code, code), ne(tenants.id, PLATFORM_TENANT_ID)))
    .limit(1);
  return t ?? null;
}

/** A tenant by its id; never the platform tenant (0), which the API does not show. */
export async function findTenantById(db: Db, id: number) {
  if (id === PLATFORM_TENANT_ID) return null;
  const [t] = await db.select().from(tenants).where(eq(tenants.id, id)).limit(1);
  return t ?? null;
}

/** A tenant's users may sign in and keep working only while it is active and not expired. */
export async function tenantIsUsable(db: Db, tenantId: number, now: Date): Promise<boolean> {
  const t = await findTenantById(db, tenantId);
  return t?.status === 'active' && (t.expiresAt === null || t.expiresAt > now);
}

export async function findUserForLogin(db: Db, tenantId: number | null, username: string) {
  const [u] = await db
    .select()
    .from(users)
    .where(and(sameTenantKey(users.tenantId, tenantId), eq(users.username, username)))
    .limit(1);
  return u ?? null;
}

export async function findUserById(db: Db, id: number) {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u ?? null;
}

/**
 * Counts a failed sign-in and locks the account when the threshold is reached, in one
 * conditional update so concurrent failures cannot skip the lock.
 */
export async function recordFailedLogin(db: Db, userId: number, threshold: number, lockMinutes: number, now: Date) {
  const [u] = await db
    .update(users)
    .set({
      failedLoginCount: sql`${users.failedLoginCount} + 1`,
      lockedUntil: sql`CASE WHEN ${users.failedLoginCount} + 1 >= ${threshold}
        THEN ${now.toISOString()}::timestamptz + make_interval(mins => ${lockMinutes})
        ELSE ${users.lockedUntil} END`,
    })
    .where(eq(users.id, userId))
    .returning({ failed: users.failedLoginCount, lockedUntil: users.lockedUntil });
  return u ?? null;
}

export async function recordSuccessfulLogin(db: Db, userId: number, ip: string, now: Date) {
  await db
    .update(users)
    .set({ failedLoginCount: 0, lockedUntil: null, lastLoginAt: now, lastLoginIp: ip })
    .where(eq(users.id, userId));
}

export async function clearLock(db: Db, userId: number) {
  await db
    .update(users)
    .set({ failedLoginCount: 0, lockedUntil: null, updatedAt: new Date() })
    .where(eq(users.id, userId));
}

export async function setPasswordHash(db: Db, userId: number, hash: string, now: Date) {
  await db
    .update(users)
    .set({ passwordHash: hash, passwordChangedAt: now, updatedAt: now })
    .where(eq(users.id, userId));
}

export async function insertSession(
  db: Db,
  s: { tenantId: number | null; userId: number; ip: string; userAgent: string; expiresAt: Date },
) {
  const [row] = await db
    .insert(userSessions)
    .values({ ...s, tenantId: platformKey(s.tenantId) })
    .returning();
  if (!row) throw new Error('session insert returned nothing');
  return row;
}

/** A refresh token of the session; it carries the session's tenant. */
export async function insertRefreshToken(db: Db, session: { id: number; tenantId: number | null }, tokenHash: string) {
  await db.insert(refreshTokens).values({ tenantId: platformKey(session.tenantId), sessionId: session.id, tokenHash });
}

/** Marks a refresh token used if it was not: returns its session id, or null when already used or unknown. */
export async function consumeRefreshToken(db: Db, tokenHash: string, now: Date) {
  const [r] = await db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.tokenHash, tokenHash), isNull(refreshTokens.usedAt)))
    .returning({ sessionId: refreshTokens.sessionId });
  return r?.sessionId ?? null;
}

export async function findUsedRefreshToken(db: Db, tokenHash: string) {
  const [r] = await db
    .select({ sessionId: refreshTokens.sessionId })
    .from(refreshTokens)
    .where(and(eq(refreshTokens.tokenHash, tokenHash), isNotNull(refreshTokens.usedAt)))
    .limit(1);
  return r?.sessionId ?? null;
}

export async function findLiveSession(db: Db, sessionId: number, now: Date) {
  const [s] = await db
    .select()
    .from(userSessions)
    .where(and(eq(userSessions.id, sessionId), isNull(userSessions.revokedAt), gt(userSessions.expiresAt, now)))
    .limit(1);
  return s ?? null;
}

export async function touchSession(db: Db, sessionId: number, now: Date, expiresAt?: Date) {
  await db
    .update(userSessions)
    .set({ lastActiveAt: now, ...(expiresAt ? { expiresAt } : {}) })
    .where(eq(userSessions.id, sessionId));
}

/** Revokes sessions; returns the ids that were live. `exceptSessionId` keeps the caller's own. */
export async function revokeSessions(
  db: Db,
  where: { sessionId?: number; userIds?: number[]; exceptSessionId?: number },
  reason: string,
  now: Date,
): Promise<number[]> {
  const conds = [isNull(userSessions.revokedAt)];
  if (where.sessionId !== undefined) conds.push(eq(userSessions.id, where.sessionId));
  if (where.userIds !== undefined) conds.push(inArray(userSessions.userId, where.userIds));
  if (where.exceptSessionId !== undefined) conds.push(ne(userSessions.id, where.exceptSessionId));
  const rows = await db
    .update(userSessions)
    .set({ revokedAt: now, revokeReason: reason })
    .where(and(...conds))
    .returning({ id: userSessions.id });
  return rows.map((r) => r.id);
}

/** Permission codes of a user: explicit role codes plus the codes of the menus bound to the roles. */
export async function loadPermissions(db: Db, userId: number): Promise<{ roleIds: number[]; codes: string[] }> {
  const roleRows = await db
    .select({ id: roles.id, permissions: roles.permissions })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(and(eq(userRoles.userId, userId), eq(roles.status, 'active')));
  const roleIds = roleRows.map((r) => r.id);
  const codes = new Set(roleRows.flatMap((r) => r.permissions));
  if (roleIds.length) {
    const menuRows = await db
      .selectDistinct({ permission: menus.permission })
      .from(roleMenus)
      .innerJoin(menus, eq(menus.id, roleMenus.menuId))
      .where(and(inArray(roleMenus.roleId, roleIds), eq(menus.status, 'active'), isNotNull(menus.permission)));
    for (const m of menuRows) if (m.permission) codes.add(m.permission);
  }
  return { roleIds, codes: [...codes].sort() };
}
