import { createSign, createVerify, type KeyObject } from 'node:crypto';
import type { ChannelBSignType } from './config.ts';

/** RSA2 is SHA256withRSA, the legacy RSA is SHA1withRSA (https://opendocs.alipay.com/common/02kf5q). */
const ALGORITHM: Record<ChannelBSignType, string> = { RSA2: 'RSA-SHA256', RSA: 'RSA-SHA1' };

/**
 * The string Alipay signs: every parameter except those left out, with a non-empty value, sorted
 * by key in ASCII order, joined as `k=v&k=v` with the values as they are (not URL-encoded).
 */
export function signContent(params: Record<string, string>, leaveOut: readonly string[]): string {
  return Object.keys(params)
    .filter((k) => !leaveOut.includes(k) && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]}`)
    .join('&');
}

export function signText(text: string, key: KeyObject, signType: ChannelBSignType): string {
  return createSign(ALGORITHM[signType]).update(text, 'utf8').sign(key, 'base64');
}

export function verifyText(text: string, signature: string, key: KeyObject, signType: ChannelBSignType): boolean {
  try {
    return createVerify(ALGORITHM[signType]).update(text, 'utf8').verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** Alipay's timestamps and dates: "yyyy-MM-dd HH:mm:ss" (optionally ".SSS") in Beijing time. */
export function parseChinaTime(text: string | undefined): Date | null {
  const m = text ? /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)$/.exec(text) : null;
  if (!m) return null;
  const date = new Date(`${m[1]}T${m[2]}+08:00`);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function formatChinaTime(date: Date): string {
  return new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}
