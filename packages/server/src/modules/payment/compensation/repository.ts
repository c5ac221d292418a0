import { and, gt, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../platform/db/client.ts';
import type { OrderRow, RefundRow } from '../orders/repository.ts';
import { paymentOrders, paymentRefunds } from '../tables.ts';

const o = paymentOrders;
const r = paymentRefunds;

/** One claim of a sweep: rows above `afterId` (a sweep walks forward), at most `limit`, held until `leaseUntil`. */
export type Claim = { now: Date; leaseUntil: Date; limit: number; afterId: number };

/** Not held by another instance's query, or its hold ran out (that instance died or stalled). */
const unleased = (lease: PgColumn, now: Date) => or(isNull(lease), lt(lease, now));

/**
 * The claim of the compensation jobs: one conditional update sets the lease of rows picked with
 * FOR UPDATE SKIP LOCKED, so two instances sweeping at once take disjoint rows, and a row claimed
 * in a run stays out of every other claim until its lease ends.
 */
async function claimOrders(db: Db, c: Claim, where: SQL | undefined): Promise<OrderRow[]> {
  const due = db
    .select({ id: o.id })
    .from(o)
    .where(and(where, unleased(o.queryLeaseUntil, c.now), gt(o.id, c.afterId)))
    .orderBy(o.id)
    .limit(c.limit)
    .for('update', { skipLocked: true });
  const rows = await db.update(o).set({ queryLeaseUntil: c.leaseUntil }).where(inArray(o.id, due)).returning();
  return rows.sort((a, b) => a.id - b.id);
}

/** paymentReconciliation: orders still paying (or unknown) created before `createdBefore`. */
export const claimStaleOrders = (db: Db, c: Claim, createdBefore: Date) =>
  claimOrders(db, c, and(inArray(o.status, ['paying', 'unknown']), lt(o.createdAt, createdBefore)));

/**
 * closeExpiredPaymentOrders: unpaid orders whose expiry has passed, `unsent` ones included (closed
 * here without a query). Reconciliation never takes `unsent`: the channel has nothing to tell.
 */
export const claimExpiredOrders = (db: Db, c: Claim) =>
  claimOrders(db, c, and(inArray(o.status, ['paying', 'unknown', 'unsent']), lt(o.expiresAt, c.now)));

/** paymentReconciliation: refunds still processing (or unknown) created before `createdBefore`. */
export async function claimStaleRefunds(db: Db, c: Claim, createdBefore: Date): Promise<RefundRow[]> {
  const due = db
    .select({ id: r.id })
    .from(r)
    .where(
      and(
        inArray(r.status, ['processing', 'unknown']),
        lt(r.createdAt, createdBefore),
        unleased(r.queryLeaseUntil, c.now),
        gt(r.id, c.afterId),
      ),
    )
    .orderBy(r.id)
    .limit(c.limit)
    .for('update', { skipLocked: true });
  const rows = await db.update(r).set({ queryLeaseUntil: c.leaseUntil }).where(inArray(r.id, due)).returning();
  return rows.sort((a, b) => a.id - b.id);
}
