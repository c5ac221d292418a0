import { and, eq, gt, inArray, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { type EventStatus, type PaymentEventType, paymentEventRecords } from '../tables.ts';

export type PaymentEventRow = typeof paymentEventRecords.$inferSelect;
export type NewPaymentEvent = Omit<typeof paymentEventRecords.$inferInsert, 'id'>;

const t = paymentEventRecords;
const events = scoped(t);

/** Pending and not leased (or the lease ran out: the instance that held it died). */
const claimable = (now: Date) => and(eq(t.status, 'pending'), or(isNull(t.leaseUntil), lt(t.leaseUntil, now)));

export async function insertEvent(tx: Db, row: NewPaymentEvent): Promise<PaymentEventRow> {
  const [created] = await tx.insert(t).values(row).returning();
  return created as PaymentEventRow;
}

/**
 * Claims one event for an attempt: the lease is set and `attempts` counted in the same
 * conditional update, so the attempt number fences the outcome (finishAttempt).
 */
export async function claimEvent(db: Db, id: number, now: Date, leaseUntil: Date): Promise<PaymentEventRow | null> {
  const [row] = await db
    .update(t)
    .set({ attempts: sql`${t.attempts} + 1`, leaseUntil, updatedAt: now })
    .where(and(eq(t.id, id), claimable(now)))
    .returning();
  return row ?? null;
}

/**
 * Claims up to `limit` due events with ids above `afterId` (a sweep walks forward, so an event
 * that failed in this sweep waits for the next one); several instances skip each other's rows
 * (FOR UPDATE SKIP LOCKED).
 */
export async function claimDueEvents(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
  afterId: number,
): Promise<PaymentEventRow[]> {
  const due = db
    .select({ id: t.id })
    .from(t)
    .where(and(claimable(now), gt(t.id, afterId)))
    .orderBy(t.id)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(t)
    .set({ attempts: sql`${t.attempts} + 1`, leaseUntil, updatedAt: now })
    .where(inArray(t.id, due))
    .returning();
}

/** The outcome of the claimed attempt; a stale holder (another attempt was claimed since) writes nothing. */
export async function finishAttempt(
  db: Db,
  claimed: Pick<PaymentEventRow, 'id' | 'attempts'>,
  outcome: { status: EventStatus; lastError: string | null; deliveredAt: Date | null },
  now: Date,
): Promise<PaymentEventRow | null> {
  const [row] = await db
    .update(t)
    .set({ ...outcome, leaseUntil: null, updatedAt: now })
    .where(and(eq(t.id, claimed.id), eq(t.attempts, claimed.attempts), eq(t.status, 'pending')))
    .returning();
  return row ?? null;
}

/** A dead letter back to pending with its attempts reset (spec §3.1 redispatch). */
export async function resetFailedEvent(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  id: number,
  now: Date,
): Promise<PaymentEventRow | null> {
  const [row] = await db
    .update(t)
    .set({ status: 'pending', attempts: 0, leaseUntil: null, updatedAt: now })
    .where(events.where(scope, and(eq(t.id, id), eq(t.status, 'failed'))))
    .returning();
  return row ?? null;
}

export const findEvent = (db: Db, scope: Pick<Scope, 'tenantId'>, id: number) => events.findById(db, scope, id);

export function pageEvents(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  q: PageRequest & { status?: EventStatus; type?: PaymentEventType },
) {
  const parts = [q.status ? eq(t.status, q.status) : undefined, q.type ? eq(t.type, q.type) : undefined].filter(
    (p): p is SQL => p !== undefined,
  );
  return events.page(db, scope, q, parts.length ? and(...parts) : undefined, sql`${t.id} desc`);
}
