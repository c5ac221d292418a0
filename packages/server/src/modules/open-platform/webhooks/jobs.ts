import { and, inArray, lt, ne } from 'drizzle-orm';
import type { AppContext } from '../../../platform/context.ts';
import { defineJob, defineSystemTask } from '../../../platform/jobs/define.ts';
import type { Deliverer } from './deliver.ts';
import { RETENTION_MS } from './policy.ts';
import { openWebhookDeliveries } from './tables.ts';

const d = openWebhookDeliveries;

type WebhookJobDeps = { ctx: AppContext; deliverer: Deliverer };

/*
 * Background work of webhooks: the wake queue sends an emission's first attempts right after its
 * commit; the minute sweeper sends due retries and anything a lost wake job or a dead instance
 * left behind; a daily task drops old finished deliveries.
 */

const wake = defineJob<{ deliveryIds: number[] }, WebhookJobDeps>({
  name: 'open-platform.webhooks.wake',
  // the sweeper covers a failed job; retrying it here would only add load
  options: { concurrency: 4, retryLimit: 1, deadLetter: false },
  handler: async ({ deliveryIds }, _job, { deliverer }) => ({
    sent: await deliverer.deliverDue(inArray(d.id, deliveryIds)),
  }),
});

const deliverWebhooks = defineSystemTask<WebhookJobDeps>({
  name: 'open-platform.deliverWebhooks',
  description: 'Send due webhook deliveries: retries, and first attempts whose wake-up was lost',
  schedule: '* * * * *',
  handler: async (_params, _run, { deliverer }) => ({ sent: await deliverer.deliverDue() }),
});

const purgeWebhookDeliveries = defineSystemTask<WebhookJobDeps>({
  name: 'open-platform.purgeWebhookDeliveries',
  description: 'Delete finished webhook deliveries (and their attempts) older than 30 days',
  schedule: '41 3 * * *',
  async handler(_params, _run, { ctx }) {
    const cutoff = new Date(ctx.clock().getTime() - RETENTION_MS);
    const rows = await ctx.db
      .delete(d)
      .where(and(ne(d.status, 'pending'), lt(d.createdAt, cutoff)))
      .returning({ id: d.id });
    return { deleted: rows.length };
  },
});

/** Registered by the webhooks index.ts. */
export const webhookJobs = { wake, deliverWebhooks, purgeWebhookDeliveries };
