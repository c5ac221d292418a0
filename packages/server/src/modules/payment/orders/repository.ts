import { and, eq, gt, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import type { ChannelCode } from '../channels/types.ts';
import { type OrderStatus, paymentOrders, paymentRefunds, type RefundStatus } from '../tables.ts';

export type OrderRow = typeof paymentOrders.$inferSelect;
export type RefundRow = typeof paymentRefunds.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;

const orders = scoped(paymentOrders);
const refunds = scoped(paymentRefunds);
const o = paymentOrders;
const r = paymentRefunds;

export const findOrder = (db: Db, scope: TenantScope, id: number) => orders.findById(db, scope, id);
export const findRefund = (db: Db, scope: TenantScope, id: number) => refunds.findById(db, scope, id);

export async function findOrderByNo(db: Db, scope: TenantScope, orderNo: string): Promise<OrderRow | null> {
  const [row] = await db
    .select()
    .from(o)
    .where(orders.where(scope, eq(o.orderNo, orderNo)))
    .limit(1);
  return row ?? null;
}

export async function findRefundByNo(db: Db, scope: TenantScope, refundNo: string): Promise<RefundRow | null> {
  const [row] = await db
    .select()
    .from(r)
    .where(refunds.where(scope, eq(r.refundNo, refundNo)))
    .limit(1);
  return row ?? null;
}

/** Inserts the order unless its number is taken in the tenant (then null: the caller compares bodies). */
export async function insertOrderOnce(
  db: Db,
  scope: TenantScope & { tenantId: number },
  values: Omit<typeof o.$inferInsert, 'id' | 'tenantId'>,
): Promise<OrderRow | null> {
  const [row] = await db
    .insert(o)
    .values({ ...values, tenantId: scope.tenantId })
    .onConflictDoNothing({ target: [o.tenantId, o.orderNo] })
    .returning();
  return row ?? null;
}

export const insertRefund = (db: Db, scope: TenantScope, values: Omit<typeof r.$inferInsert, 'id' | 'tenantId'>) =>
  refunds.insert(db, scope, values);

/**
 * The one way an order's status moves: conditional on the statuses it may leave (ARCHITECTURE
 * §5), so a repeat or a race finds no row and changes nothing.
 */
export async function moveOrder(
  db: Db,
  scope: TenantScope,
  id: number,
  from: OrderStatus[],
  patch: Partial<Pick<OrderRow, 'status' | 'channelTradeNo' | 'paidAt' | 'closedAt' | 'payPayload' | 'lastError'>>,
  now: Date,
): Promise<OrderRow | null> {
  const [row] = await db
    .update(o)
    .set({ ...patch, version: sql`${o.version} + 1`, updatedAt: now })
    .where(orders.where(scope, and(eq(o.id, id), inArray(o.status, from))))
    .returning();
  return row ?? null;
}

export async function moveRefund(
  db: Db,
  scope: TenantScope,
  id: number,
  from: RefundStatus[],
  patch: Partial<Pick<RefundRow, 'status' | 'channelRefundNo' | 'refundedAt' | 'lastError'>>,
  now: Date,
): Promise<RefundRow | null> {
  const [row] = await db
    .update(r)
    .set({ ...patch, version: sql`${r.version} + 1`, updatedAt: now })
    .where(refunds.where(scope, and(eq(r.id, id), inArray(r.status, from))))
    .returning();
  return row ?? null;
}

/**
 * The claim of a retried creation: an order that never reached its channel (`unsent`) and has
 * not expired moves back to `paying`. One conditional update, so of two concurrent retries (on
 * any instances) exactly one gets the row and calls the channel.
 */
export async function claimUnsentOrder(db: Db, scope: TenantScope, id: number, now: Date): Promise<OrderRow | null> {
  const [row] = await db
    .update(o)
    .set({ status: 'paying', version: sql`${o.version} + 1`, updatedAt: now })
    .where(orders.where(scope, and(eq(o.id, id), eq(o.status, 'unsent'), gt(o.expiresAt, now))))
    .returning();
  return row ?? null;
}

/** Why the creation call failed, kept on the order (no status move). */
export async function recordOrderError(db: Db, scope: TenantScope, id: number, lastError: string, now: Date) {
  await db
    .update(o)
    .set({ lastError, updatedAt: now })
    .where(orders.where(scope, eq(o.id, id)));
}

/** Why the refund call failed, kept on the refund (no status move). */
export async function recordRefundError(db: Db, scope: TenantScope, id: number, lastError: string, now: Date) {
  await db
    .update(r)
    .set({ lastError, updatedAt: now })
    .where(refunds.where(scope, eq(r.id, id)));
}

/**
 * The sandbox payer paid but the "channel's" notice is lost: the payment is recorded on the open
 * order (the sandbox channel's only record, channels/sandbox/adapter.ts) without a status move.
 */
export async function recordSandboxPayment(db: Db, scope: TenantScope, id: number, tradeNo: string, now: Date) {
  const [row] = await db
    .update(o)
    .set({ paidAt: now, channelTradeNo: tradeNo, updatedAt: now })
    .where(orders.where(scope, and(eq(o.id, id), inArray(o.status, ['paying', 'unknown']), isNull(o.paidAt))))
    .returning();
  return row ?? null;
}

/** Details of the payment the channel gave at creation (no status move); an earlier failure is past. */
export async function setPaymentStart(
  db: Db,
  scope: TenantScope,
  id: number,
  patch: Pick<OrderRow, 'payPayload' | 'channelTradeNo'>,
  now: Date,
): Promise<OrderRow | null> {
  const [row] = await db
    .update(o)
    .set({ ...patch, lastError: null, updatedAt: now })
    .where(orders.where(scope, eq(o.id, id)))
    .returning();
  return row ?? null;
}

/**
 * Reserves `amount` of a succeeded order for a refund: one conditional update, so concurrent
 * refunds can never together exceed the order's amount (the check constraint backs it).
 */
export async function reserveRefund(db: Db, scope: TenantScope, id: number, amount: number, now: Date) {
  const [row] = await db
    .update(o)
    .set({ refundedAmount: sql`${o.refundedAmount} + ${amount}`, updatedAt: now })
    .where(
      orders.where(
        scope,
        and(eq(o.id, id), eq(o.status, 'succeeded'), sql`${o.refundedAmount} + ${amount} <= ${o.amount}`),
      ),
    )
    .returning();
  return row ?? null;
}

/** A failed refund gives its reservation back (in the transaction of its move to failed). */
export async function releaseRefund(db: Db, scope: TenantScope, id: number, amount: number, now: Date) {
  await db
    .update(o)
    .set({ refundedAmount: sql`${o.refundedAmount} - ${amount}`, updatedAt: now })
    .where(orders.where(scope, eq(o.id, id)));
}

export function pageOrders(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { status?: OrderStatus; channel?: ChannelCode; orderNo?: string },
) {
  const parts = [
    q.status ? eq(o.status, q.status) : undefined,
    q.channel ? eq(o.channel, q.channel) : undefined,
    q.orderNo ? eq(o.orderNo, q.orderNo) : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return orders.page(db, scope, q, parts.length ? and(...parts) : undefined, sql`${o.id} desc`);
}

export function pageRefunds(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { status?: RefundStatus; orderId?: number; refundNo?: string },
) {
  const parts = [
    q.status ? eq(r.status, q.status) : undefined,
    q.orderId ? eq(r.orderId, q.orderId) : undefined,
    q.refundNo ? eq(r.refundNo, q.refundNo) : undefined,
  ].filter((p): p is SQL => p !== undefined);
  return refunds.page(db, scope, q, parts.length ? and(...parts) : undefined, sql`${r.id} desc`);
}
