import { and, asc, count, eq, gt, inArray, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import type { Channel } from '../channels/types.ts';
import { type DispatchRow, notificationDispatches, type OutboxRow } from './tables.ts';

const d = notificationDispatches;

/** Which pending rows a delivery loop takes: of one outbox row and channel, or older than a time. */
export type PendingFilter = { outboxId?: number; channel?: Channel; createdBefore?: Date };

const pendingFilter = (f: PendingFilter) =>
  and(
    f.outboxId !== undefined ? eq(d.outboxId, f.outboxId) : undefined,
    f.channel !== undefined ? eq(d.channel, f.channel) : undefined,
    f.createdBefore !== undefined ? lt(d.createdAt, f.createdBefore) : undefined,
  );

/**
 * Leases up to `limit` pending rows no one holds (FOR UPDATE SKIP LOCKED: instances never share
 * a row) until `lockedUntil`, counting the attempt.
 */
export async function claimPending(
  db: Db,
  filter: PendingFilter,
  now: Date,
  lockedUntil: Date,
  limit: number,
): Promise<DispatchRow[]> {
  const ids = db
    .select({ id: d.id })
    .from(d)
    .where(and(eq(d.decision, 'pending'), or(isNull(d.lockedUntil), lt(d.lockedUntil, now)), pendingFilter(filter)))
    .orderBy(asc(d.id))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(d)
    .set({ lockedUntil, attempts: sql`${d.attempts} + 1`, updatedAt: now })
    .where(and(inArray(d.id, ids), eq(d.decision, 'pending')))
    .returning();
}

/** Records one outcome for rows still pending, and gives up their lease. */
export async function settleDispatches(db: Db, ids: number[], set: Partial<DispatchRow>, now: Date): Promise<void> {
  await db
    .update(d)
    .set({ ...set, lockedUntil: null, updatedAt: now })
    .where(and(inArray(d.id, ids), eq(d.decision, 'pending')));
}

/**
 * Keeps rows pending but leased to no one until `retryAt` (the claim takes rows whose lease has
 * passed): the sweeper tries them again then. `error` says why the last attempt failed.
 */
export async function postponeDispatches(db: Db, ids: number[], retryAt: Date, error: string, now: Date) {
  await db
    .update(d)
    .set({ lockedUntil: retryAt, error, updatedAt: now })
    .where(and(inArray(d.id, ids), eq(d.decision, 'pending')));
}

/** The channels an outbox row still has pending rows on. */
export async function pendingChannels(db: Db, outboxId: number): Promise<Channel[]> {
  const rows = await db
    .selectDistinct({ channel: d.channel })
    .from(d)
    .where(and(eq(d.outboxId, outboxId), eq(d.decision, 'pending')));
  return rows.map((r) => r.channel);
}

/**
 * Quiet-hours rows whose window has ended, back to pending and leased until `lockedUntil` in the
 * same statement.
 */
export function releaseQuietHours(db: Db, now: Date, lockedUntil: Date): Promise<DispatchRow[]> {
  return db
    .update(d)
    .set({ decision: 'pending', lockedUntil, attempts: sql`${d.attempts} + 1`, updatedAt: now })
    .where(and(eq(d.decision, 'deferred'), eq(d.reasonCode, 'quiet_hours'), lte(d.deliverAfter, now)))
    .returning();
}

const digestDue = (now: Date) =>
  and(eq(d.decision, 'deferred'), eq(d.reasonCode, 'digest'), isNull(d.deliveredAt), lte(d.deliverAfter, now));

/** Digest keys with rows due and not yet folded into a digest. */
export async function dueDigestKeys(db: Db, now: Date, limit: number): Promise<(string | null)[]> {
  const rows = await db.selectDistinct({ digestKey: d.digestKey }).from(d).where(digestDue(now)).limit(limit);
  return rows.map((r) => r.digestKey);
}

/** Claims the due rows of one digest (delivered_at set where it was null): each row goes into one digest. */
export function takeDigestRows(tx: Db, now: Date, digestKey: string): Promise<DispatchRow[]> {
  return tx
    .update(d)
    .set({ deliveredAt: now, updatedAt: now })
    .where(and(digestDue(now), eq(d.digestKey, digestKey)))
    .returning();
}

/** Serialises counting and deduplication of one event in one tenant across instances, until the commit. */
export async function lockEventForDispatch(tx: Db, tenantId: number | null, eventKey: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`notify:${tenantId}:${eventKey}`}))`);
}

/**
 * The chunk's rows as one JSON parameter expanded by the database: a 2,000-row insert costs one
 * parameter instead of 30,000 for the query builder and driver to handle. A re-expansion writes
 * nothing again (unique pair index).
 */
export async function insertDispatches(tx: Db, row: OutboxRow, now: Date, values: object[]): Promise<void> {
  await tx.execute(sql`
    insert into notification_dispatches (tenant_id, outbox_id, event_key, idempotency_key, created_at, updated_at,
      channel, recipient_type, recipient_id, recipient_key, contact, decision, reason_code, digest_key, deliver_after)
    select ${platformKey(row.tenantId)}::int, ${row.id}::int, ${row.eventKey}::text, ${row.input.idempotencyKey ?? null}::text,
      ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz,
      t.channel, t.recipient_type, t.recipient_id, t.recipient_key, t.contact, t.decision, t.reason_code, t.digest_key, t.deliver_after
    from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as t(channel text, recipient_type text, recipient_id int,
      recipient_key text, contact jsonb, decision text, reason_code text, digest_key text, deliver_after timestamptz)
    on conflict (outbox_id, recipient_key, channel) do nothing`);
}

type PerRecipient<T> = Map<string, T>;

/** recipient key → channel → deliveries (pending or sent) of the row's event since `since` */
export async function recentDeliveries(tx: Db, row: OutboxRow, keys: string[], since: Date) {
  const rows = await tx
    .select({ key: d.recipientKey, channel: d.channel, n: count() })
    .from(d)
    .where(
      and(
        eq(d.eventKey, row.eventKey),
        inArray(d.recipientKey, keys),
        inArray(d.decision, ['pending', 'sent']),
        gt(d.createdAt, since),
        eq(d.tenantId, platformKey(row.tenantId)),
      ),
    )
    .groupBy(d.recipientKey, d.channel);
  const out: PerRecipient<Map<Channel, number>> = new Map();
  for (const r of rows) out.set(r.key, (out.get(r.key) ?? new Map()).set(r.channel, Number(r.n)));
  return out;
}

/** recipient key → channels this idempotency key was dispatched on by other outbox rows */
export async function earlierDispatches(tx: Db, row: OutboxRow, keys: string[], idempotencyKey: string) {
  const rows = await tx
    .select({ key: d.recipientKey, channel: d.channel })
    .from(d)
    .where(
      and(
        eq(d.eventKey, row.eventKey),
        eq(d.idempotencyKey, idempotencyKey),
        inArray(d.recipientKey, keys),
        ne(d.decision, 'deduped'),
        ne(d.outboxId, row.id),
        eq(d.tenantId, platformKey(row.tenantId)),
      ),
    );
  const out: PerRecipient<Set<Channel>> = new Map();
  for (const r of rows) out.set(r.key, (out.get(r.key) ?? new Set()).add(r.channel));
  return out;
}
