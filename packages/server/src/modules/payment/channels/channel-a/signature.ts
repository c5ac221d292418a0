import { createPrivateKey, createSign, createVerify, type KeyObject, randomBytes } from 'node:crypto';
import type { ChannelAConfig } from './config.ts';

/**
 * WeChat Pay API v3 signatures: SHA256withRSA over lines each ended by "\n" — a request is
 * `METHOD\nURI\nTIMESTAMP\nNONCE\nBODY\n`, a response or callback `TIMESTAMP\nNONCE\nBODY\n`.
 * (the channel's v3 documentation, "签名生成" and "签名验证").
 */
export function signedMessage(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** Callbacks and responses older or newer than this are refused (a replayed message). */
export const REPLAY_WINDOW_SECONDS = 300;

export function verifySha256Rsa(message: string | Buffer, signatureBase64: string, key: KeyObject): boolean {
  try {
    return createVerify('RSA-SHA256').update(message).verify(key, signatureBase64, 'base64');
  } catch {
    return false;
  }
}

export function signSha256Rsa(message: string | Buffer, key: KeyObject): string {
  return createSign('RSA-SHA256').update(message).sign(key, 'base64');
}

/** Why a `Wechatpay-Timestamp` is unusable at `now`, or null when it is inside the replay window. */
export function timestampProblem(timestamp: string | undefined, now: Date): string | null {
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return 'timestamp missing or not a number';
  const skew = Math.abs(now.getTime() / 1000 - Number(timestamp));
  return skew > REPLAY_WINDOW_SECONDS ? `stale timestamp (${Math.round(skew)} s from now)` : null;
}

/** createPrivateKey reads both PKCS#8 and PKCS#1 PEM; the label tells it which. */
export function merchantKey(config: ChannelAConfig): KeyObject {
  return createPrivateKey({ key: config.merchantPrivateKey, format: 'pem' });
}

/** The `Authorization` header of one API request (scheme WECHATPAY2-SHA256-RSA2048). */
export function authorizationHeader(
  config: ChannelAConfig,
  request: { method: string; pathAndQuery: string; body: string; now: Date },
): string {
  const timestamp = String(Math.floor(request.now.getTime() / 1000));
  const nonce = randomBytes(16).toString('hex').toUpperCase();
  const signature = signSha256Rsa(
    signedMessage(request.method, request.pathAndQuery, timestamp, nonce, request.body),
    merchantKey(config),
  );
  const fields = { mchid: config.mchId, nonce_str: nonce, signature, timestamp, serial_no: config.merchantSerialNo };
  const params = Object.entries(fields).map(([k, v]) => `${k}="${v}"`);
  return `WECHATPAY2-SHA256-RSA2048 ${params.join(',')}`;
}
