import { defineSystemTask } from '../../platform/jobs/define.ts';

type PaymentJobDeps = {
  dispatchPaymentEvents: () => Promise<{ claimed: number; done: number; failed: number }>;
};

/** Spec §3.1, §4.5: pending or lease-expired outbox events are delivered again every minute. */
const dispatchPaymentEvents = defineSystemTask<PaymentJobDeps>({
  name: 'payment.dispatchPaymentEvents',
  description: 'Deliver payment events left pending (or whose delivery lease ran out) to their subscribers',
  schedule: '* * * * *',
  handler: async (_params, _run, deps) => deps.dispatchPaymentEvents(),
});

/** The background work of payments (registered by index.ts). */
export const paymentJobs = { dispatchPaymentEvents };
