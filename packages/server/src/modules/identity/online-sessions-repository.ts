import { and, count, desc, eq, gt, isNull, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { userSessions, users } from './tables.ts';

/** Live sign-in sessions: not revoked, not expired. */
type TenantScope = Pick<Scope, 'tenantId'>;

const tenantSessions = scoped(userSessions);

export type SessionQuery = PageRequest & { username?: string; ip?: string; userId?: number };

export function liveSession(now: Date): SQL {
  return and(isNull(userSessions.revokedAt), gt(userSessions.expiresAt, now)) as SQL;
}

/** Live sessions of the scope's tenant, most recently active first. */
export async function listLiveSessions(db: Db, scope: TenantScope, q: SessionQuery, now: Date) {
  const conds: SQL[] = [liveSession(now)];
  if (q.username !== undefined) conds.push(eq(users.username, q.username));
  if (q.ip !== undefined) conds.push(eq(userSessions.ip, q.ip));
  if (q.userId !== undefined) conds.push(eq(userSessions.userId, q.userId));
  const cond = tenantSessions.where(scope, and(...conds));
  const [list, totals] = await Promise.all([
    db
      .select({
        id: userSessions.id,
        userId: userSessions.userId,
        username: users.username,
        nickname: users.nickname,
        ip: userSessions.ip,
        userAgent: userSessions.userAgent,
        createdAt: userSessions.createdAt,
        lastActiveAt: userSessions.lastActiveAt,
        expiresAt: userSessions.expiresAt,
      })
      .from(userSessions)
      .innerJoin(users, eq(users.id, userSessions.userId))
      .where(cond)
      .orderBy(desc(userSessions.lastActiveAt), desc(userSessions.id))
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(userSessions).innerJoin(users, eq(users.id, userSessions.userId)).where(cond),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/** Whether `id` is a live session of the scope's tenant. */
export async function isLiveSessionOf(db: Db, scope: TenantScope, id: number, now: Date): Promise<boolean> {
  const [live] = await db
    .select({ id: userSessions.id })
    .from(userSessions)
    .where(tenantSessions.where(scope, and(eq(userSessions.id, id), liveSession(now))))
    .limit(1);
  return live !== undefined;
}
