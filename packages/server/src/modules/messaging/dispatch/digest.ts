import { and, asc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { renderTemplate } from '../render.ts';
import { LEASE_MS } from './deliver.ts';
import type { Notifier } from './notify.ts';
import { type DispatchRow, notificationDispatches, notificationOutbox } from './tables.ts';

const KEYS_PER_RUN = 200;

/**
 * Folds due digest rows into one `messaging.digest` email per recipient and period (spec §2.3).
 * The claim (delivered_at set where it was null) and the digest's outbox row are one
 * transaction: each row goes into exactly one digest, even with several instances. The digested
 * rows keep decision `deferred` / `digest`; the digest email's own dispatch row (same digest key
 * as its idempotency key) carries the outcome.
 */
export async function sendDueDigests(
  ctx: AppContext,
  deps: { notifier: Notifier; catalog: Catalog },
): Promise<{ digests: number; items: number }> {
  const d = notificationDispatches;
  const now = ctx.clock();
  const due = and(
    eq(d.decision, 'deferred'),
    eq(d.reasonCode, 'digest'),
    isNull(d.deliveredAt),
    lte(d.deliverAfter, now),
  );
  const keys = await ctx.db.selectDistinct({ digestKey: d.digestKey }).from(d).where(due).limit(KEYS_PER_RUN);
  let digests = 0;
  let items = 0;
  for (const { digestKey } of keys) {
    if (!digestKey) continue;
    await ctx.db.transaction(async (tx) => {
      const rows = await tx
        .update(d)
        .set({ deliveredAt: now, updatedAt: now })
        .where(and(due, eq(d.digestKey, digestKey)))
        .returning();
      const first = rows[0];
      if (!first || first.recipientId === null || first.recipientType === 'external') return;
      const inputs = new Map(
        (
          await tx
            .select({ id: notificationOutbox.id, input: notificationOutbox.input })
            .from(notificationOutbox)
            .where(inArray(notificationOutbox.id, [...new Set(rows.map((r) => r.outboxId))]))
            .orderBy(asc(notificationOutbox.id))
        ).map((o) => [o.id, o.input]),
      );
      const lines = rows
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .map((r) => {
          const def = deps.catalog.get(r.eventKey);
          const title = def ? renderTemplate(def.title, inputs.get(r.outboxId)?.variables ?? {}) : r.eventKey;
          return `• ${title} (${def?.displayName ?? r.eventKey}, ${r.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
        });
      await deps.notifier.notifyWithin(tx, 'messaging.digest', {
        tenantId: first.tenantId,
        recipients: [{ type: first.recipientType, id: first.recipientId }],
        variables: { count: rows.length, lines: lines.join('\n') },
        channels: { only: ['email'] },
        idempotencyKey: digestKey,
      });
      digests += 1;
      items += rows.length;
    });
  }
  return { digests, items };
}

/**
 * Quiet-hours rows whose window has ended go back to pending, leased to this instance in the
 * same statement: the caller delivers exactly the rows it released, so a concurrent release on
 * another instance can neither take them twice nor leave them behind.
 */
export async function releaseDeferred(ctx: AppContext): Promise<DispatchRow[]> {
  const d = notificationDispatches;
  const now = ctx.clock();
  return ctx.db
    .update(d)
    .set({
      decision: 'pending',
      lockedUntil: new Date(now.getTime() + LEASE_MS),
      attempts: sql`${d.attempts} + 1`,
      updatedAt: now,
    })
    .where(and(eq(d.decision, 'deferred'), eq(d.reasonCode, 'quiet_hours'), lte(d.deliverAfter, now)))
    .returning();
}
