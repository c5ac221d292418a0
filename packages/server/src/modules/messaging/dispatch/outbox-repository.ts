import { and, asc, eq, inArray, lt, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { notificationOutbox, type OutboxInput, type OutboxRow } from './tables.ts';

const o = notificationOutbox;

/** Writes one outbox row (inside the caller's transaction); answers its id. */
export async function insertOutbox(tx: Db, values: typeof o.$inferInsert): Promise<number | undefined> {
  const [row] = await tx
    .insert(o)
    .values({ ...values, tenantId: platformKey(values.tenantId) })
    .returning({ id: o.id });
  return row?.id;
}

/** Takes the row (pending, or processing with an expired lease) until `lockedUntil`; null when another worker has it or it is done. */
export async function claimOutbox(db: Db, id: number, now: Date, lockedUntil: Date): Promise<OutboxRow | null> {
  const [row] = await db
    .update(o)
    .set({ status: 'processing', lockedUntil, attempts: sql`${o.attempts} + 1` })
    .where(
      and(eq(o.id, id), sql`(${o.status} = 'pending' or (${o.status} = 'processing' and ${o.lockedUntil} < ${now}))`),
    )
    .returning();
  return row ?? null;
}

export async function markOutboxDone(db: Db, id: number, now: Date): Promise<void> {
  await db.update(o).set({ status: 'done', processedAt: now, lockedUntil: null }).where(eq(o.id, id));
}

/** Rows no worker is on: pending since before `stale`, or processing with an expired lease. */
export async function leftBehindOutboxIds(db: Db, now: Date, stale: Date, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: o.id })
    .from(o)
    .where(
      and(
        ne(o.status, 'done'),
        or(
          and(eq(o.status, 'pending'), lt(o.createdAt, stale)),
          and(eq(o.status, 'processing'), lt(o.lockedUntil, now)),
        ),
      ),
    )
    .orderBy(asc(o.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** outbox id → the input it was written with */
export async function outboxInputs(db: Db, ids: number[]): Promise<Map<number, OutboxInput>> {
  const rows = await db.select({ id: o.id, input: o.input }).from(o).where(inArray(o.id, ids));
  return new Map(rows.map((r) => [r.id, r.input]));
}
