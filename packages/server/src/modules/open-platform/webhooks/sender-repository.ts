import { and, asc, eq, exists, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { openApps } from '../apps/tables.ts';
import { appActive } from './repository.ts';
import {
  type DeliveryRow,
  openWebhookAttempts,
  openWebhookDeliveries,
  openWebhookSubscriptions,
  type SubscriptionRow,
} from './tables.ts';

/** The queries of sending deliveries: claiming due rows, recording attempts, subscription health. */
const d = openWebhookDeliveries;
const s = openWebhookSubscriptions;

/**
 * Leases up to `limit` due rows of active subscriptions of active applications that no one holds
 * (FOR UPDATE SKIP LOCKED: instances never share a row), incrementing `attempts`; `ids` narrows to
 * those deliveries.
 */
export function claimDue(
  db: Db,
  now: Date,
  lockedUntil: Date,
  limit: number,
  ids: number[] | undefined,
): Promise<DeliveryRow[]> {
  const due = db
    .select({ id: d.id })
    .from(d)
    .where(
      and(
        eq(d.status, 'pending'),
        lte(d.nextAttemptAt, now),
        or(isNull(d.lockedUntil), lt(d.lockedUntil, now)),
        exists(
          db
            .select({ one: sql`1` })
            .from(s)
            .where(and(eq(s.id, d.subscriptionId), eq(s.status, 'active'), appActive(s.appId))),
        ),
        ids ? inArray(d.id, ids) : undefined,
      ),
    )
    .orderBy(asc(d.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(d)
    .set({ lockedUntil, attempts: sql`${d.attempts} + 1` })
    .where(and(inArray(d.id, due), eq(d.status, 'pending'), or(isNull(d.lockedUntil), lt(d.lockedUntil, now))))
    .returning();
}

/** The attempt's outcome, written only where `attempts` still equals the claimed value; null when overtaken. */
export async function recordOutcome(
  tx: Db,
  row: Pick<DeliveryRow, 'id' | 'attempts'>,
  outcome: Pick<
    DeliveryRow,
    'status' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError' | 'lastDurationMs' | 'deliveredAt'
  >,
): Promise<DeliveryRow | null> {
  const [updated] = await tx
    .update(d)
    .set({ ...outcome, lockedUntil: null })
    .where(and(eq(d.id, row.id), eq(d.status, 'pending'), eq(d.attempts, row.attempts)))
    .returning();
  return updated ?? null;
}

export async function insertAttempt(tx: Db, row: Omit<typeof openWebhookAttempts.$inferInsert, 'id'>) {
  await tx.insert(openWebhookAttempts).values({ ...row, tenantId: platformKey(row.tenantId ?? null) });
}

/** A success ends the subscription's failure streak (a no-op when there is none). */
export async function resetFailures(tx: Db, subscriptionId: number, now: Date) {
  await tx
    .update(s)
    .set({ consecutiveFailures: 0, failingSince: null, updatedAt: now })
    .where(and(eq(s.id, subscriptionId), sql`${s.consecutiveFailures} > 0`));
}

export async function countFailure(tx: Db, subscriptionId: number, now: Date) {
  await tx
    .update(s)
    .set({
      consecutiveFailures: sql`${s.consecutiveFailures} + 1`,
      failingSince: sql`coalesce(${s.failingSince}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(eq(s.id, subscriptionId));
}

/** Disables the subscription if it is active, has failed `failures` times and since `failingSince` or earlier. */
export async function disableFailing(
  tx: Db,
  subscriptionId: number,
  now: Date,
  rule: { failures: number; failingSince: Date },
): Promise<SubscriptionRow | null> {
  const [disabled] = await tx
    .update(s)
    .set({ status: 'disabled', disabledAt: now, disabledReason: 'failures', updatedAt: now })
    .where(
      and(
        eq(s.id, subscriptionId),
        eq(s.status, 'active'),
        gte(s.consecutiveFailures, rule.failures),
        lte(s.failingSince, rule.failingSince),
      ),
    )
    .returning();
  return disabled ?? null;
}

/** The application's name and creator, for telling its owners. */
export async function appOwner(tx: Db, appId: number) {
  const [app] = await tx
    .select({ name: openApps.name, createdBy: openApps.createdBy })
    .from(openApps)
    .where(eq(openApps.id, appId));
  return app ?? null;
}

export async function subscriptionsByIds(db: Db, ids: number[]): Promise<SubscriptionRow[]> {
  return ids.length ? db.select().from(s).where(inArray(s.id, ids)) : [];
}
