/**
 * The message format of UnionPay full-channel: flat string fields. Requests and callbacks are
 * HTML form posts (application/x-www-form-urlencoded); synchronous answers are `k=v&k=v` NOT
 * percent-encoded, where a value may hold `&` inside `{…}` or `[…]` (reserved fields), and a PEM
 * holds raw newlines.
 */
export type Fields = Record<string, string>;

/** A form body; a repeated field makes the message ambiguous, so it is refused (null). */
export function parseForm(body: string): Fields | null {
  const out: Fields = {};
  for (const [key, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(out, key)) return null;
    out[key] = value;
  }
  return out;
}

export function encodeForm(fields: Fields): string {
  return new URLSearchParams(fields).toString();
}

/** A synchronous answer: `&` separates fields only outside brackets; the first `=` ends the name. */
export function parseAnswer(text: string): Fields | null {
  const out: Fields = {};
  let depth = 0;
  let start = 0;
  const take = (end: number): boolean => {
    const part = text.slice(start, end);
    start = end + 1;
    if (part === '') return true;
    const eq = part.indexOf('=');
    if (eq <= 0) return false;
    const key = part.slice(0, eq);
    if (Object.hasOwn(out, key)) return false;
    out[key] = part.slice(eq + 1);
    return true;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && depth > 0) depth--;
    else if (c === '&' && depth === 0 && !take(i)) return null;
  }
  return take(text.length) ? out : null;
}

/**
 * The signed string: every non-empty field but `signature`, sorted by name, as `k=v&k=v`.
 * UnionPay's SDKs drop empty fields before signing and before verifying, so an empty field is
 * neither sent nor signed.
 */
export function signingString(fields: Fields): string {
  return Object.keys(fields)
    .filter((k) => k !== 'signature' && fields[k] !== '')
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
}
