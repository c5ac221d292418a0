import type { SecretBox } from '../../../platform/crypto/secrets.ts';

/**
 * Unsubscribe tokens are the (recipient, event) pair sealed with the field-encryption key
 * (AES-256-GCM): nothing to store, unforgeable, and a key rotation keeps old links working while
 * the old key stays configured. The value is URL-safe as it is.
 */
export type UnsubscribeTarget = { tenantId: number | null; recipientKey: string; eventKey: string };

const CONTEXT = 'notification-unsubscribe';

export function unsubscribeToken(secrets: SecretBox, t: UnsubscribeTarget): string {
  return secrets.encrypt(JSON.stringify([t.tenantId, t.recipientKey, t.eventKey]), CONTEXT);
}

export function readUnsubscribeToken(secrets: SecretBox, token: string): UnsubscribeTarget | null {
  try {
    const [tenantId, recipientKey, eventKey] = JSON.parse(secrets.decrypt(token, CONTEXT)) as [
      number | null,
      string,
      string,
    ];
    return { tenantId, recipientKey, eventKey };
  } catch {
    return null;
  }
}
