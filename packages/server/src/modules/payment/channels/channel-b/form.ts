/**
 * Alipay posts notifies as application/x-www-form-urlencoded in the charset named by the body's
 * own `charset` field (utf-8 when absent; GBK when the app was set up that way). URLSearchParams
 * only decodes UTF-8, so the body is split and percent-decoded to bytes here, then decoded with
 * that charset (TextDecoder knows gbk, gb18030 and utf-8).
 */
export type FormResult = { ok: true; fields: Record<string, string> } | { ok: false; reason: string };

export function parseNotifyForm(raw: Buffer): FormResult {
  const pairs: [Buffer, Buffer][] = [];
  for (const part of raw.toString('latin1').split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    const k = percentDecode(key);
    const v = percentDecode(value);
    if (!k || !v) return { ok: false, reason: 'body: malformed percent-encoding' };
    pairs.push([k, v]);
  }
  const charsetPair = pairs.find(([k]) => k.toString('latin1') === 'charset');
  const charset = (charsetPair?.[1].toString('latin1') || 'utf-8').toLowerCase();
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return { ok: false, reason: `body: unsupported charset ${charset}` };
  }
  const fields: Record<string, string> = {};
  try {
    for (const [k, v] of pairs) {
      const key = decoder.decode(k);
      if (Object.hasOwn(fields, key)) return { ok: false, reason: `body: repeated field ${key}` };
      fields[key] = decoder.decode(v);
    }
  } catch {
    return { ok: false, reason: `body: not valid ${charset}` };
  }
  return { ok: true, fields };
}

/** application/x-www-form-urlencoded: "+" is a space, %XX a byte. null when a % is malformed. */
function percentDecode(text: string): Buffer | null {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2b) bytes.push(0x20);
    else if (c === 0x25) {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(c);
  }
  return Buffer.from(bytes);
}
