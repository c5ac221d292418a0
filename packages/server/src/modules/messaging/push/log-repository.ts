import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { pushSendLogs } from './tables.ts';

/** Queries of push send logs; every one goes through the tenant scope. */
export const pushLogs = scoped(pushSendLogs);
type TenantScope = Pick<Scope, 'tenantId'>;
export type PushSendLogRow = typeof pushSendLogs.$inferSelect;
export type PushSendLogQuery = PageRequest & {
  status?: 'sent' | 'failed';
  userId?: number;
  eventKey?: string;
  from?: string;
  to?: string;
};

const newestFirst = sql`${pushSendLogs.createdAt} DESC, ${pushSendLogs.id} DESC`;

export async function pageLogs(db: Db, scope: TenantScope, q: PushSendLogQuery) {
  const conds: SQL[] = [];
  if (q.status) conds.push(eq(pushSendLogs.status, q.status));
  if (q.userId !== undefined) conds.push(eq(pushSendLogs.userId, q.userId));
  if (q.eventKey) conds.push(eq(pushSendLogs.eventKey, q.eventKey));
  if (q.from) conds.push(gte(pushSendLogs.createdAt, new Date(q.from)));
  if (q.to) conds.push(lt(pushSendLogs.createdAt, new Date(q.to)));
  const page = await pushLogs.page(db, scope, q, conds.length ? and(...conds) : undefined, newestFirst);
  return { ...page, list: page.list.map(({ tenantId: _tenant, ...rest }) => rest) };
}
