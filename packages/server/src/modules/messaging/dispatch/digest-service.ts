import type { AppContext } from '../../../platform/context.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { renderTemplate } from '../render.ts';
import { dueDigestKeys, takeDigestRows } from './dispatch-repository.ts';
import type { Notifier } from './notify-service.ts';
import { outboxInputs } from './outbox-repository.ts';

const KEYS_PER_RUN = 200;

/**
 * Folds due digest rows into one `messaging.digest` email per recipient and period (spec §2.3).
 * The claim (delivered_at set where it was null) and the digest's outbox row are one
 * transaction: each row goes into exactly one digest, even with several instances. The digested
 * rows keep decision `deferred` / `digest`; the digest email's own dispatch row (same digest key
 * as its idempotency key) carries the outcome.
 */
export async function sendDueDigests(
  ctx: Pick<AppContext, 'db' | 'clock'>,
  deps: { notifier: Notifier; catalog: Catalog },
): Promise<{ digests: number; items: number }> {
  const now = ctx.clock();
  const keys = await dueDigestKeys(ctx.db, now, KEYS_PER_RUN);
  let digests = 0;
  let items = 0;
  for (const digestKey of keys) {
    if (!digestKey) continue;
    await ctx.db.transaction(async (tx) => {
      const rows = await takeDigestRows(tx, now, digestKey);
      const first = rows[0];
      if (!first || first.recipientId === null || first.recipientType === 'external') return;
      const inputs = await outboxInputs(tx, [...new Set(rows.map((r) => r.outboxId))]);
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
