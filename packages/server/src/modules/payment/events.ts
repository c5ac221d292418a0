import { defineEvents } from '../../platform/events/define.ts';
import type { PaymentEventType } from './tables.ts';

/**
 * The payment module's events (spec §6.1): emitted through the outbox when an order or refund
 * reaches a final state, to in-process subscribers and open-platform webhook subscriptions.
 * No notification events of its own yet.
 */
const types: Record<PaymentEventType, string> = {
  'payment.succeeded': 'Order paid',
  'payment.closed': 'Order closed',
  'payment.failed': 'Channel order creation failed',
  'refund.succeeded': 'Refund arrived',
  'refund.failed': 'Refund failed or approval rejected',
};

export const PAYMENT_EVENT_TYPES = Object.keys(types) as PaymentEventType[];

export const paymentEvents = defineEvents(
  'payment',
  {},
  PAYMENT_EVENT_TYPES.map((type) => ({
    type,
    description: `${types[type]}; data: the order (and refund) and eventId, receivers deduplicate on it`,
  })),
);
