import { and, asc, eq, lt, ne, or } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import type { SystemTask } from '../../../platform/jobs/types.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { Deliverer } from './deliver.ts';
import { releaseDeferred, sendDueDigests } from './digest.ts';
import type { Notifier } from './notify.ts';
import { notificationDispatches, notificationOutbox } from './tables.ts';

/** An outbox row or pending dispatch older than this with no worker on it was left behind. */
const STALE_MS = 60_000;

/**
 * The scheduled system tasks of the notification center (spec §3.6), declared beside their code.
 * pg-boss fires each cron tick once across instances; the claims inside are atomic anyway.
 */
export function messagingTasks(
  ctx: AppContext,
  deps: { expand: (outboxId: number) => Promise<unknown>; deliverer: Deliverer; notifier: Notifier; catalog: Catalog },
): SystemTask[] {
  const d = notificationDispatches;
  const o = notificationOutbox;
  return [
    {
      name: 'messaging.deliverDeferred',
      description: 'Deliver notifications deferred by quiet hours whose window has ended',
      schedule: '* * * * *',
      async handler() {
        const released = await releaseDeferred(ctx);
        await deps.deliverer.deliverClaimed(released);
        return { released: released.length };
      },
    },
    {
      name: 'messaging.sendDigests',
      description: 'Fold due digest notifications into one messaging.digest email per recipient',
      schedule: '* * * * *',
      handler: async () => sendDueDigests(ctx, deps),
    },
    {
      name: 'messaging.sweepOutbox',
      description: 'Expand and deliver notifications whose worker died or whose wake-up was lost',
      schedule: '* * * * *',
      async handler() {
        const now = ctx.clock();
        const stale = new Date(now.getTime() - STALE_MS);
        const rows = await ctx.db
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
          .limit(100);
        for (const { id } of rows) await deps.expand(id);
        const delivered = await deps.deliverer.deliverPending(lt(d.createdAt, stale));
        return { expanded: rows.length, delivered };
      },
    },
  ];
}
