/**
 * The header digest of a callback's log row (spec §2.4 "request-header digest"): the headers
 * verification reads or that tell senders apart, each cut short; the signature itself is kept
 * only as its first characters (enough to tell two deliveries apart, useless to replay). No
 * credentials: a channel callback carries none, and Authorization or Cookie are never kept.
 */
const KEPT = /^(content-type|content-length|user-agent|x-forwarded-for|wechatpay-[a-z-]+)$/;
const SIGNATURES = new Set(['wechatpay-signature']);
const MAX_VALUE = 256;
const MAX_HEADERS = 16;

export function headerDigest(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!KEPT.test(key) || raw === undefined || Object.keys(out).length >= MAX_HEADERS) continue;
    const value = (Array.isArray(raw) ? raw.join(', ') : raw).toWellFormed().replaceAll('\0', '');
    out[key] = SIGNATURES.has(key) ? `${value.slice(0, 16)}… (${value.length} chars)` : value.slice(0, MAX_VALUE);
  }
  return out;
}

/**
 * The raw body as the log's text column holds it: as is when it is clean UTF-8 text (every
 * channel's normal case: JSON, or a percent-encoded form), otherwise `base64:` and the bytes in
 * base64, so a body with invalid UTF-8 or NUL bytes is still kept exactly (text cannot hold NUL).
 */
export function storedBody(raw: Buffer): string {
  const text = raw.toString('utf8');
  const clean = Buffer.from(text, 'utf8').equals(raw) && !text.includes('\0') && !text.startsWith('base64:');
  return clean ? text : `base64:${raw.toString('base64')}`;
}
