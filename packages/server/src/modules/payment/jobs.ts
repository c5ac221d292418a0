import { defineSystemTask } from '../../platform/jobs/define.ts';

type PaymentJobDeps = {
  dispatchPaymentEvents: () => Promise<{ claimed: number; done: number; failed: number }>;
  purgeNotifyLogs: () => Promise<{ deleted: number }>;
};

/** Spec §3.1, §4.5: pending or lease-expired outbox events are delivered again every minute. */
const dispatchPaymentEvents = defineSystemTask<PaymentJobDeps>({
  name: 'payment.dispatchPaymentEvents',
  description: 'Deliver payment events left pending (or whose delivery lease ran out) to their subscribers',
  schedule: '* * * * *',
  handler: async (_params, _run, deps) => deps.dispatchPaymentEvents(),
});

/** Callback log rows older than the retention (90 days) are deleted once a day. */
const purgeNotifyLogs = defineSystemTask<PaymentJobDeps>({
  name: 'payment.purgeNotifyLogs',
  description: 'Delete payment callback log rows past their 90-day retention',
  schedule: '40 3 * * *',
  handler: async (_params, _run, deps) => deps.purgeNotifyLogs(),
});

/** The background work of payments (registered by index.ts). */
export const paymentJobs = { dispatchPaymentEvents, purgeNotifyLogs };
