import { and, count, countDistinct, eq, gte, lt, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { scoped } from '../../platform/db/scoped.ts';
import { utcDay } from '../../platform/db/sql.ts';
import { liveSession } from './online-sessions-repository.ts';
import { loginLogs, userSessions, users } from './tables.ts';

/** The access-token lifetime by default (config ACCESS_TOKEN_TTL_SECONDS). */
const DEFAULT_ACTIVE_WINDOW_SECONDS = 900;

const tenantUsers = scoped(users);
const tenantSessions = scoped(userSessions);
const tenantLoginLogs = scoped(loginLogs);

/**
 * Dashboard totals of the scope's tenant (platform scope: platform rows):
 * - users: every user;
 * - onlineUsers: distinct users with a live session active within the access-token lifetime
 *   (docs/decisions/0004: activity is recorded when the principal is loaded, at most once a minute);
 * - todayLogins: successful sign-ins since 00:00 UTC.
 * Pass `activeWithinSeconds` = config.accessTokenTtlSeconds when it differs from the default.
 */
export async function identityStats(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  now: Date,
  activeWithinSeconds = DEFAULT_ACTIVE_WINDOW_SECONDS,
): Promise<{ users: number; onlineUsers: number; todayLogins: number }> {
  const activeSince = new Date(now.getTime() - activeWithinSeconds * 1000);
  const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const [userRows, onlineRows, loginRows] = await Promise.all([
    db.select({ n: count() }).from(users).where(tenantUsers.where(scope)),
    db
      .select({ n: countDistinct(userSessions.userId) })
      .from(userSessions)
      .where(tenantSessions.where(scope, and(liveSession(now), gte(userSessions.lastActiveAt, activeSince)))),
    db
      .select({ n: count() })
      .from(loginLogs)
      .where(tenantLoginLogs.where(scope, and(eq(loginLogs.success, true), gte(loginLogs.createdAt, midnight)))),
  ]);
  return {
    users: Number(userRows[0]?.n ?? 0),
    onlineUsers: Number(onlineRows[0]?.n ?? 0),
    todayLogins: Number(loginRows[0]?.n ?? 0),
  };
}

/**
 * Sign-ins of the scope's tenant in [from, to) per UTC day, succeeded and failed: one grouped
 * query, a range of the (tenant_id, created_at) index. Days without sign-ins are absent.
 */
export function signInsByDayQuery(db: Db, scope: Pick<Scope, 'tenantId'>, from: Date, to: Date) {
  const day = utcDay(loginLogs.createdAt);
  return db
    .select({
      day,
      succeeded: sql<string>`count(*) filter (where ${loginLogs.success})`,
      failed: sql<string>`count(*) filter (where not ${loginLogs.success})`,
    })
    .from(loginLogs)
    .where(tenantLoginLogs.where(scope, and(gte(loginLogs.createdAt, from), lt(loginLogs.createdAt, to))))
    .groupBy(day);
}

export async function signInsByDay(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  from: Date,
  to: Date,
): Promise<{ day: string; succeeded: number; failed: number }[]> {
  const rows = await signInsByDayQuery(db, scope, from, to);
  return rows.map((r) => ({ day: r.day, succeeded: Number(r.succeeded), failed: Number(r.failed) }));
}
