import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { smsSendLogs } from './tables.ts';

/** Queries of SMS send logs; every one goes through the tenant scope. */
export const logs = scoped(smsSendLogs);
type TenantScope = Pick<Scope, 'tenantId'>;
export type SmsSendLogRow = typeof smsSendLogs.$inferSelect;
export type SmsSendLogQuery = PageRequest & {
  status?: 'sent' | 'failed';
  phone?: string;
  eventKey?: string;
  /** inclusive */
  from?: string;
  /** exclusive */
  to?: string;
};

const newestFirst = sql`${smsSendLogs.createdAt} DESC, ${smsSendLogs.id} DESC`;

export function pageLogs(db: Db, scope: TenantScope, q: SmsSendLogQuery) {
  const conds: SQL[] = [];
  if (q.status) conds.push(eq(smsSendLogs.status, q.status));
  if (q.phone) conds.push(eq(smsSendLogs.phone, q.phone));
  if (q.eventKey) conds.push(eq(smsSendLogs.eventKey, q.eventKey));
  if (q.from) conds.push(gte(smsSendLogs.createdAt, new Date(q.from)));
  if (q.to) conds.push(lt(smsSendLogs.createdAt, new Date(q.to)));
  return logs.page(db, scope, q, conds.length ? and(...conds) : undefined, newestFirst);
}

export function toSmsLogView(row: SmsSendLogRow) {
  const { tenantId: _tenant, ...rest } = row;
  return rest;
}
