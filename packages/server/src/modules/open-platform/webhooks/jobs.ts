import { and, inArray, lt, ne } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import type { SystemTask } from '../../../platform/jobs/types.ts';
import type { Deliverer } from './deliver.ts';
import { WAKE_QUEUE } from './emit.ts';
import { RETENTION_MS } from './policy.ts';
import { openWebhookDeliveries } from './tables.ts';

const d = openWebhookDeliveries;

/**
 * Background work of webhooks, declared beside its code: the wake queue sends an emission's
 * first attempts right after its commit; the minute sweeper sends due retries and anything a lost
 * wake job or a dead instance left behind; a daily task drops old finished deliveries.
 */
export function registerWebhookJobs(ctx: AppContext, deliverer: Deliverer): void {
  void ctx.jobs.defineQueue<{ deliveryIds: number[] }>(
    WAKE_QUEUE,
    async ({ deliveryIds }) => ({ sent: await deliverer.deliverDue(inArray(d.id, deliveryIds)) }),
    // the sweeper covers a failed job; retrying it here would only add load
    { concurrency: 4, retryLimit: 1, deadLetter: false },
  );
  const tasks: SystemTask[] = [
    {
      name: 'openPlatform.deliverWebhooks',
      description: 'Send due webhook deliveries: retries, and first attempts whose wake-up was lost',
      schedule: '* * * * *',
      handler: async () => ({ sent: await deliverer.deliverDue() }),
    },
    {
      name: 'openPlatform.purgeWebhookDeliveries',
      description: 'Delete finished webhook deliveries (and their attempts) older than 30 days',
      schedule: '41 3 * * *',
      async handler() {
        const cutoff = new Date(ctx.clock().getTime() - RETENTION_MS);
        const rows = await ctx.db
          .delete(d)
          .where(and(ne(d.status, 'pending'), lt(d.createdAt, cutoff)))
          .returning({ id: d.id });
        return { deleted: rows.length };
      },
    },
  ];
  for (const task of tasks) ctx.jobs.registerSystemTask(task);
}
