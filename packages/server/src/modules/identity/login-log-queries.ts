import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { loginLogs } from './tables.ts';

/** Reading the sign-in history (writing is login-logs.ts, on every attempt). */
type TenantScope = Pick<Scope, 'tenantId'>;

const tenantLoginLogs = scoped(loginLogs);
const newestFirst = sql`${loginLogs.createdAt} DESC, ${loginLogs.id} DESC`;

export type LoginLogQuery = PageRequest & {
  username?: string;
  userId?: number;
  ip?: string;
  success?: boolean;
  /** inclusive */
  from?: string;
  /** exclusive */
  to?: string;
};

/** Sign-ins of the scope's tenant, newest first. */
export async function listLoginLogs(db: Db, scope: TenantScope, q: LoginLogQuery) {
  const conds: SQL[] = [];
  if (q.username !== undefined) conds.push(eq(loginLogs.username, q.username));
  if (q.userId !== undefined) conds.push(eq(loginLogs.userId, q.userId));
  if (q.ip !== undefined) conds.push(eq(loginLogs.ip, q.ip));
  if (q.success !== undefined) conds.push(eq(loginLogs.success, q.success));
  if (q.from !== undefined) conds.push(gte(loginLogs.createdAt, new Date(q.from)));
  if (q.to !== undefined) conds.push(lt(loginLogs.createdAt, new Date(q.to)));
  const page = await tenantLoginLogs.page(db, scope, q, conds.length ? and(...conds) : undefined, newestFirst);
  return {
    ...page,
    list: page.list.map((l) => ({
      id: l.id,
      userId: l.userId,
      username: l.username,
      ip: l.ip,
      userAgent: l.userAgent,
      success: l.success,
      reason: l.reason,
      createdAt: l.createdAt,
    })),
  };
}
