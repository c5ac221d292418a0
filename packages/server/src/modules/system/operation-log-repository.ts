import { and, count, desc, eq, gte, lt, max, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains, utcDay } from '../../platform/db/sql.ts';
import { operationLogs } from './tables.ts';

/** Queries of the operation log; every one goes through the tenant scope. */
export const logs = scoped(operationLogs);
export type OperationLogEntry = Omit<typeof operationLogs.$inferInsert, 'id' | 'tenantId' | 'createdAt'>;
export type OperationLogRow = typeof operationLogs.$inferSelect;
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

function filterOf(q: OperationLogFilter): SQL | undefined {
  const f: (SQL | undefined)[] = [];
  if (q.userId !== undefined) f.push(eq(operationLogs.userId, q.userId));
  if (q.username) f.push(contains(operationLogs.username, q.username));
  if (q.module) f.push(eq(operationLogs.module, q.module));
  if (q.operation) f.push(eq(operationLogs.operation, q.operation));
  if (q.ip) f.push(contains(operationLogs.ip, q.ip));
  if (q.statusCode !== undefined) f.push(eq(operationLogs.statusCode, q.statusCode));
  if (q.from) f.push(gte(operationLogs.createdAt, new Date(q.from)));
  if (q.to) f.push(lt(operationLogs.createdAt, new Date(q.to)));
  return and(...f);
}

export function pageLogs(db: Db, scope: TenantScope, q: PageRequest & OperationLogFilter) {
  return logs.page(db, scope, q, filterOf(q), desc(operationLogs.id));
}

/** How many rows match and the highest id among them: the fixed bound of an export. */
export async function snapshotOf(db: Db, scope: TenantScope, q: OperationLogFilter) {
  const [row] = await db
    .select({ n: count(), maxId: max(operationLogs.id) })
    .from(operationLogs)
    .where(logs.where(scope, filterOf(q)));
  return { total: Number(row?.n ?? 0), maxId: row?.maxId ?? 0 };
}

/** Matching rows with `id < beforeId`, newest first (keyset: pages stay stable while rows arrive). */
export function logsBefore(db: Db, scope: TenantScope, q: OperationLogFilter, beforeId: number, limit: number) {
  return db
    .select()
    .from(operationLogs)
    .where(logs.where(scope, and(filterOf(q), lt(operationLogs.id, beforeId))))
    .orderBy(desc(operationLogs.id))
    .limit(limit);
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

/** Rows created in [from, to) per UTC day: one grouped query, a range of the (tenant_id, created_at) index. */
export function countByDayQuery(db: Db, scope: TenantScope, from: Date, to: Date) {
  const day = utcDay(operationLogs.createdAt);
  return db
    .select({ day, n: count() })
    .from(operationLogs)
    .where(logs.where(scope, and(gte(operationLogs.createdAt, from), lt(operationLogs.createdAt, to))))
    .groupBy(day);
}
