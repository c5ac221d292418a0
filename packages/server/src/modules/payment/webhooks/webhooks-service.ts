import type { Scope } from '../../../platform/auth/principal.ts';
import type { ScopedWebhookView } from '../../open-platform/index.ts';
import { tenantOf } from '../orders/orders-service.ts';

/** The event prefixes of the payment center's webhooks (spec §6.1: payment.* and refund.*). */
export const PAYMENT_WEBHOOK_PREFIXES = ['payment.', 'refund.'];

/**
 * The payment webhooks view (issue 16 item 6; spec §4.5): open-platform's subscriptions and
 * deliveries limited to payment and refund events, through its public face. Payment events
 * happen in a tenant, so a subscription is made in one.
 */
export function createPaymentWebhooks(view: ScopedWebhookView) {
  return {
    ...view,
    create(scope: Scope, input: Parameters<ScopedWebhookView['create']>[1]) {
      tenantOf(scope);
      return view.create(scope, input);
    },
  };
}

export type PaymentWebhooks = ReturnType<typeof createPaymentWebhooks>;
