import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { loginLogs } from './tables.ts';

/** The sign-in history: one row per attempt, written by sign-in, read by the log pages. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type LoginLogRow = typeof loginLogs.$inferSelect;

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

export async function insertLoginLog(
  db: Db,
  row: {
    tenantId: number | null;
    userId: number | null;
    username: string;
    ip: string;
    userAgent: string;
    success: boolean;
    reason: string;
  },
) {
  await db.insert(loginLogs).values({
    ...row,
    tenantId: platformKey(row.tenantId),
    username: row.username.slice(0, 128),
    userAgent: row.userAgent.slice(0, 512),
  });
}

/** Sign-ins of the scope's tenant, newest first. */
export function listLoginLogs(db: Db, scope: TenantScope, q: LoginLogQuery) {
  const conds: SQL[] = [];
  if (q.username !== undefined) conds.push(eq(loginLogs.username, q.username));
  if (q.userId !== undefined) conds.push(eq(loginLogs.userId, q.userId));
  if (q.ip !== undefined) conds.push(eq(loginLogs.ip, q.ip));
  if (q.success !== undefined) conds.push(eq(loginLogs.success, q.success));
  if (q.from !== undefined) conds.push(gte(loginLogs.createdAt, new Date(q.from)));
  if (q.to !== undefined) conds.push(lt(loginLogs.createdAt, new Date(q.to)));
  return tenantLoginLogs.page(db, scope, q, conds.length ? and(...conds) : undefined, newestFirst);
}
