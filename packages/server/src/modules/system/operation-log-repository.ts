import { and, count, desc, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { operationLogs } from './tables.ts';

/** Queries of the operation log; every one goes through the tenant scope. */
export const logs = scoped(operationLogs);
export type OperationLogEntry = Omit<typeof operationLogs.$inferInsert, 'id' | 'tenantId' | 'createdAt'>;
type TenantScope = Pick<Scope, 'tenantId'>;

export type OperationLogFilter = {
  userId?: number;
  username?: string;
  module?: string;
  operation?: string;
  ip?: string;
  statusCode?: number;
  from?: string;
  to?: string;
};

export function pageLogs(db: Db, scope: TenantScope, q: PageRequest & OperationLogFilter) {
  const f: (SQL | undefined)[] = [];
  if (q.userId !== undefined) f.push(eq(operationLogs.userId, q.userId));
  if (q.username) f.push(contains(operationLogs.username, q.username));
  if (q.module) f.push(eq(operationLogs.module, q.module));
  if (q.operation) f.push(eq(operationLogs.operation, q.operation));
  if (q.ip) f.push(contains(operationLogs.ip, q.ip));
  if (q.statusCode !== undefined) f.push(eq(operationLogs.statusCode, q.statusCode));
  if (q.from) f.push(gte(operationLogs.createdAt, new Date(q.from)));
  if (q.to) f.push(lt(operationLogs.createdAt, new Date(q.to)));
  return logs.page(db, scope, q, and(...f), desc(operationLogs.id));
}

export async function insertLog(db: Db, scope: TenantScope, entry: OperationLogEntry & { createdAt: Date }) {
  await logs.insert(db, scope, entry);
}

/** Rows created in [from, to). */
export async function countBetween(db: Db, scope: TenantScope, from: Date, to: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(operationLogs)
    .where(logs.where(scope, and(gte(operationLogs.createdAt, from), lt(operationLogs.createdAt, to))));
  return Number(row?.n ?? 0);
}
