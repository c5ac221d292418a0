import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { emailSendLogs } from './tables.ts';

/** Queries of email send logs; every one goes through the tenant scope. */
export const sendLogRows = scoped(emailSendLogs);
export type EmailSendLogRow = typeof emailSendLogs.$inferSelect;
export type EmailSendLogEntry = Omit<typeof emailSendLogs.$inferInsert, 'id'>;
type TenantScope = Pick<Scope, 'tenantId'>;

export type SendLogFilter = {
  status?: 'sent' | 'failed';
  toAddress?: string;
  eventKey?: string;
  from?: string;
  to?: string;
};

export function pageSendLogs(db: Db, scope: TenantScope, q: PageRequest & SendLogFilter) {
  const f: (SQL | undefined)[] = [];
  if (q.status) f.push(eq(emailSendLogs.status, q.status));
  if (q.toAddress) f.push(contains(emailSendLogs.toAddress, q.toAddress));
  if (q.eventKey) f.push(eq(emailSendLogs.eventKey, q.eventKey));
  if (q.from) f.push(gte(emailSendLogs.createdAt, new Date(q.from)));
  if (q.to) f.push(lt(emailSendLogs.createdAt, new Date(q.to)));
  return sendLogRows.page(db, scope, q, and(...f), sql`${emailSendLogs.createdAt} desc, ${emailSendLogs.id} desc`);
}

/** One multi-row insert per batch: a 10,000-mail dispatch writes 200 statements, not 10,000. */
export async function insertSendLogs(db: Db, entries: EmailSendLogEntry[]): Promise<number[]> {
  if (entries.length === 0) return [];
  const rows = await db
    .insert(emailSendLogs)
    .values(entries.map((e) => ({ ...e, tenantId: platformKey(e.tenantId) })))
    .returning({ id: emailSendLogs.id });
  return rows.map((r) => r.id);
}
