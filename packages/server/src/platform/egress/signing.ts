import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../crypto/digest.ts';

/**
 * Signatures of outbound webhook bodies (spec §5 rule 7, §6.3: "delivery requires an HMAC signature";
 * the header name is ours, the spec leaves it open).
 *
 *   X-Atrium-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * The timestamp is signed with the body, so a captured request cannot be replayed outside the
 * receiver's tolerance window. A receiver recomputes the HMAC over the raw bytes it received,
 * compares in constant time, and rejects timestamps too far from its clock. Several `v1=`
 * values may appear while a secret is being rotated; any one matching is enough.
 */
export const SIGNATURE_HEADER = 'x-atrium-signature';

const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

function hmac(secret: string, t: number, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

/**
 * The header value for `body` signed at `now`: one `v1=` per secret, in the order given (several
 * while a secret is being rotated, so receivers holding either one keep verifying).
 */
export function signPayload(secrets: string | readonly string[], body: string | Uint8Array, now: Date): string {
  const t = unixSeconds(now);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new Error('a webhook needs at least one signing secret');
  return [`t=${t}`, ...list.map((s) => `v1=${hmac(s, t, body)}`)].join(',');
}

/** Whether `header` is a valid signature of `body` made within `toleranceSeconds` of `now`. */
export function verifySignature(
  secret: string,
  header: string | null | undefined,
  body: string | Uint8Array,
  now: Date,
  toleranceSeconds = 300,
): boolean {
  if (!header) return false;
  let t: number | null = null;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === null || candidates.length === 0) return false;
  if (Math.abs(unixSeconds(now) - t) > toleranceSeconds) return false;
  const expected = hmac(secret, t, body);
  // every candidate is compared, so the time taken does not depend on which one matched
  return candidates.map((c) => constantTimeEqual(c, expected)).includes(true);
}
