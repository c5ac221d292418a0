/**
 * Alipay amounts are yuan as decimal strings with at most two decimals ("0.01", "100.5",
 * "88.88"); everything outside the adapter is integer fen. Converted as text, never through a
 * float, so 0.1 + 0.2 style errors cannot reach an amount.
 */
const YUAN = /^(0|[1-9]\d{0,11})(?:\.(\d{1,2}))?$/;

/** "88.8" → 8880; null when the text is not a yuan amount. */
export function yuanToFen(text: string | undefined): number | null {
  const m = text === undefined ? null : YUAN.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** 8880 → "88.80" */
export function fenToYuan(fen: number): string {
  if (!Number.isSafeInteger(fen) || fen < 0) throw new RangeError(`Not an amount in fen: ${fen}`);
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;
}
