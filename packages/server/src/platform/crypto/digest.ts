import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 hex digest: the only form in which tokens are stored. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** An opaque random token (256 bits, base64url). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
