import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import type { ChannelCode } from '../channels/types.ts';
import { paymentNotifyLogs } from '../tables.ts';

export type NotifyLogRow = typeof paymentNotifyLogs.$inferSelect;
export type NotifyLogInsert = Omit<typeof paymentNotifyLogs.$inferInsert, 'id'>;
export type NotifyLogFilter = {
  channel?: ChannelCode;
  orderNo?: string;
  signatureValid?: boolean;
  from?: Date;
  to?: Date;
};

const logs = scoped(paymentNotifyLogs);
const l = paymentNotifyLogs;

/** A callback's log row; its tenant is the verifying configuration's, null when none verified. */
export async function insertNotifyLog(db: Db, values: NotifyLogInsert): Promise<NotifyLogRow> {
  const [row] = await db
    .insert(l)
    .values({ ...values, tenantId: platformKey(values.tenantId) })
    .returning();
  return row as NotifyLogRow;
}

export const findNotifyLog = (db: Db, scope: Pick<Scope, 'tenantId'>, id: number) => logs.findById(db, scope, id);

export function pageNotifyLogs(db: Db, scope: Pick<Scope, 'tenantId'>, q: PageRequest & NotifyLogFilter) {
  const parts = [
    q.channel ? eq(l.channel, q.channel) : undefined,
    q.orderNo ? eq(l.orderNo, q.orderNo) : undefined,
    q.signatureValid !== undefined ? eq(l.signatureValid, q.signatureValid) : undefined,
    q.from ? gte(l.createdAt, q.from) : undefined,
    q.to ? lt(l.createdAt, q.to) : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return logs.page(db, scope, q, parts.length ? and(...parts) : undefined, sql`${l.id} desc`);
}

/** The retention sweep: callback rows received before `before`. */
export async function purgeNotifyLogs(db: Db, before: Date): Promise<number> {
  const rows = await db.delete(l).where(lt(l.createdAt, before)).returning({ id: l.id });
  return rows.length;
}
