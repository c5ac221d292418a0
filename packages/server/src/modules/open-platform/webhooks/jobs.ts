import { defineJob, defineSystemTask } from '../../../platform/jobs/define.ts';
import type { DeliveryService } from './deliveries-service.ts';
import type { SenderService } from './sender-service.ts';

type WebhookJobDeps = { sender: SenderService; deliveries: DeliveryService };

/*
 * Background work of webhooks: the wake queue sends an emission's first attempts right after its
 * commit; the minute sweeper sends due retries and anything a lost wake job or a dead instance
 * left behind; a daily task drops old finished deliveries.
 */

const wake = defineJob<{ deliveryIds: number[] }, WebhookJobDeps>({
  name: 'open-platform.webhooks.wake',
  // the sweeper covers a failed job; retrying it here would only add load
  options: { concurrency: 4, retryLimit: 1, deadLetter: false },
  handler: async ({ deliveryIds }, _job, { sender }) => ({ sent: await sender.deliverDue(deliveryIds) }),
});

const deliverWebhooks = defineSystemTask<WebhookJobDeps>({
  name: 'open-platform.deliverWebhooks',
  description: 'Send due webhook deliveries: retries, and first attempts whose wake-up was lost',
  schedule: '* * * * *',
  handler: async (_params, _run, { sender }) => ({ sent: await sender.deliverDue() }),
});

const purgeWebhookDeliveries = defineSystemTask<WebhookJobDeps>({
  name: 'open-platform.purgeWebhookDeliveries',
  description: 'Delete finished webhook deliveries (and their attempts) older than 30 days',
  schedule: '41 3 * * *',
  handler: async (_params, _run, { deliveries }) => deliveries.purgeOld(),
});

/** Registered by the webhooks index.ts. */
export const webhookJobs = { wake, deliverWebhooks, purgeWebhookDeliveries };
