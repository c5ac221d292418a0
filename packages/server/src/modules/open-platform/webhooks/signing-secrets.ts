import { secretContext } from '../../../platform/crypto/secrets.ts';
import type { WebhookSecretContexts } from '../../../platform/egress/webhook-secrets.ts';

/**
 * Where a subscription's signing secrets are encrypted (platform/egress/webhook-secrets.ts): the
 * context binds each value to its row and column.
 */
export const secretContexts = (id: number): WebhookSecretContexts => ({
  current: secretContext('open_webhook_subscriptions', 'secret', id),
  previous: secretContext('open_webhook_subscriptions', 'previous_secret', id),
});
