import { randomBytes } from 'node:crypto';
import { constantTimeEqual, sha256 } from '../../../platform/crypto/digest.ts';

/**
 * Client identifiers and secrets. A secret is 256 random bits, so a fast SHA-256 digest is
 * enough to store it (no password stretching needed: it cannot be guessed from a dictionary).
 */
export const newClientId = () => `app_${randomBytes(12).toString('base64url')}`;
export const newClientSecret = () => `sec_${randomBytes(32).toString('base64url')}`;
export const secretHint = (secret: string) => secret.slice(-4);
export const hashSecret = (secret: string) => sha256(secret);

export type StoredSecrets = {
  secretHash: string | null;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
};

/**
 * Whether `digest` (the SHA-256 of the presented secret) is that of the current secret, or of the
 * previous one within its grace period. Both digests are always compared, so timing does not tell
 * which one matched.
 */
export function digestMatches(stored: StoredSecrets, digest: string, now: Date): boolean {
  const current = stored.secretHash !== null && constantTimeEqual(digest, stored.secretHash);
  const previousLive =
    stored.previousSecretHash !== null &&
    stored.previousSecretExpiresAt !== null &&
    stored.previousSecretExpiresAt > now;
  const previous = constantTimeEqual(digest, stored.previousSecretHash ?? digest.replace(/./g, '0'));
  return current || (previousLive && previous);
}
