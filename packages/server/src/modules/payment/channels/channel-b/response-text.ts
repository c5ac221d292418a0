/**
 * The gateway signs the exact JSON text of `<method>_response` (or `error_response`) as it sent
 * it, so that text is cut out of the raw answer — re-serialising a parsed object could change
 * escapes or key order. Returns the balanced {...} after `"<key>":`, strings respected.
 */
export function signedObjectText(raw: string, key: string): string | null {
  const at = raw.indexOf(`"${key}"`);
  if (at < 0) return null;
  let i = raw.indexOf('{', at + key.length + 2);
  if (i < 0 || raw.slice(at + key.length + 2, i).trim() !== ':') return null;
  const start = i;
  let depth = 0;
  let inString = false;
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return raw.slice(start, i + 1);
  }
  return null;
}
