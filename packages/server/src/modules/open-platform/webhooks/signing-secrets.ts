import { randomBytes } from 'node:crypto';
import { type SecretBox, secretContext } from '../../../platform/crypto/secrets.ts';
import { signPayload } from '../../../platform/egress/signing.ts';
import type { SubscriptionRow } from './tables.ts';

/**
 * Per-subscription signing secrets: 256 random bits, shown once at creation and rotation, kept
 * encrypted (the receiver needs the secret itself, so a digest would not do). The encryption
 * context binds each value to its row and column.
 */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
export const secretHintOf = (secret: string) => secret.slice(-4);
export const currentSecretContext = (id: number) => secretContext('open_webhook_subscriptions', 'secret', id);
export const previousSecretContext = (id: number) => secretContext('open_webhook_subscriptions', 'previous_secret', id);

/**
 * The X-Atrium-Signature value: one `v1=` with the current secret, and during a rotation's grace
 * period a second one with the previous secret (signing.ts lets receivers accept either), so a
 * receiver can switch secrets without missing a delivery — as Stripe and Svix do.
 */
export function signatureFor(
  secrets: SecretBox,
  sub: Pick<SubscriptionRow, 'id' | 'secretEncrypted' | 'previousSecretEncrypted' | 'previousSecretExpiresAt'>,
  body: string,
  now: Date,
): string {
  const current = signPayload(secrets.decrypt(sub.secretEncrypted, currentSecretContext(sub.id)), body, now);
  if (!sub.previousSecretEncrypted || !sub.previousSecretExpiresAt || sub.previousSecretExpiresAt <= now) {
    return current;
  }
  const previous = signPayload(secrets.decrypt(sub.previousSecretEncrypted, previousSecretContext(sub.id)), body, now);
  // both are `t=<t>,v1=<hex>` with the same t: keep the previous one's v1 part only
  return `${current},${previous.slice(previous.indexOf(',') + 1)}`;
}
