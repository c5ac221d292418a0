import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import type { SecretBox } from '../crypto/secrets.ts';

/**
 * Signing secrets of webhook destinations (open-platform subscriptions, alert rules): 256 random
 * bits, shown once when created or rotated, kept encrypted (the receiver needs the secret itself,
 * so a digest would not do) and bound to their row and column by the encryption context. While a
 * rotation's grace period runs the previous secret signs too, so a receiver can switch secrets
 * without missing a delivery, as Stripe and Svix do.
 */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
export const webhookSecretHint = (secret: string) => secret.slice(-4);

/** The columns a row keeps its secret in. */
export type StoredWebhookSecret = {
  secretEncrypted: string;
  secretHint: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
};
/** The encryption contexts of the row's two secret columns. */
export type WebhookSecretContexts = { current: string; previous: string };

/** The secrets that sign now: the current one, then the previous one until its grace period ends. */
export function signingSecrets(
  box: SecretBox,
  row: Omit<StoredWebhookSecret, 'secretHint'>,
  contexts: WebhookSecretContexts,
  now: Date,
): string[] {
  const current = box.decrypt(row.secretEncrypted, contexts.current);
  if (!row.previousSecretEncrypted || !row.previousSecretExpiresAt || row.previousSecretExpiresAt <= now) {
    return [current];
  }
  return [current, box.decrypt(row.previousSecretEncrypted, contexts.previous)];
}

/**
 * A new secret and the columns to store: the old secret (if any) keeps signing for `graceSeconds`
 * (0: it stops at once). Answer `secret` to the caller once; it is not readable afterwards.
 */
export function rotateWebhookSecret(
  box: SecretBox,
  old: { secretEncrypted: string | null },
  contexts: WebhookSecretContexts,
  graceSeconds: number,
  now: Date,
): { secret: string; columns: StoredWebhookSecret } {
  const secret = newWebhookSecret();
  const previous = graceSeconds > 0 ? old.secretEncrypted : null;
  return {
    secret,
    columns: {
      secretEncrypted: box.encrypt(secret, contexts.current),
      secretHint: webhookSecretHint(secret),
      previousSecretEncrypted: previous
        ? box.encrypt(box.decrypt(previous, contexts.current), contexts.previous)
        : null,
      previousSecretExpiresAt: previous ? new Date(now.getTime() + graceSeconds * 1000) : null,
    },
  };
}

/** The body of a rotation request. */
export const WebhookSecretRotate = Type.Object(
  {
    graceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 7 * 86_400,
        default: 86_400,
        description:
          'how long deliveries stay signed with the previous secret as well (default 24 hours; 0 = stop now)',
      }),
    ),
  },
  { additionalProperties: false },
);
