import { defineSystemTask } from '../../platform/jobs/define.ts';
import type { CompensationService } from './compensation/compensation-service.ts';

type PaymentJobDeps = {
  dispatchPaymentEvents: () => Promise<{ claimed: number; done: number; failed: number }>;
  purgeNotifyLogs: () => Promise<{ deleted: number }>;
  reconcilePayments: CompensationService['reconcile'];
  closeExpiredOrders: CompensationService['closeExpired'];
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

/** Spec §4.5, §9: a lost callback is made up for by asking the channel (compensation/). */
const paymentReconciliation = defineSystemTask<PaymentJobDeps>({
  name: 'payment.paymentReconciliation',
  description:
    'Query orders paying (or unknown) and refunds processing (or unknown) for over 2 minutes at their channel and apply the answers as callbacks',
  schedule: '*/10 * * * *',
  handler: async (_params, _run, deps) => deps.reconcilePayments(),
});

/** Spec §4.5: expired unpaid orders are closed, after a query (a paid one is applied, never closed). */
const closeExpiredPaymentOrders = defineSystemTask<PaymentJobDeps>({
  name: 'payment.closeExpiredPaymentOrders',
  description: 'Close expired unpaid orders at their channel and here, after a channel query',
  schedule: '*/5 * * * *',
  handler: async (_params, _run, deps) => deps.closeExpiredOrders(),
});

/** The background work of payments (registered by index.ts). */
export const paymentJobs = {
  dispatchPaymentEvents,
  purgeNotifyLogs,
  paymentReconciliation,
  closeExpiredPaymentOrders,
};
