import { createHmac, randomUUID } from 'node:crypto';
import { jsonOf, type SmsProvider } from './types.ts';

/**
 * Alibaba Cloud Short Message Service, SendSms (RPC style API, version 2017-05-25).
 * Signature: https://www.alibabacloud.com/help/en/sms/signature-method
 * API: https://help.aliyun.com/en/sms/developer-reference/api-dysmsapi-2017-05-25-sendsms
 */
const VERSION = '2017-05-25';

/**
 * The percent-encoding of the RPC signature: RFC 3986 unreserved characters (A–Z a–z 0–9 - _ . ~)
 * stay, every other byte of the UTF-8 form becomes %XY in upper case (so a space is %20, never +).
 */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Parameters sorted by name, each `encode(name)=encode(value)`, joined with `&`. */
export function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${percentEncode(k)}=${percentEncode(params[k] as string)}`)
    .join('&');
}

/** Signature = Base64(HMAC-SHA1(secret + "&", method + "&" + encode("/") + "&" + encode(canonical query))). */
export function rpcSignature(method: 'GET' | 'POST', params: Record<string, string>, secret: string): string {
  const stringToSign = `${method}&${percentEncode('/')}&${percentEncode(canonicalQuery(params))}`;
  return createHmac('sha1', `${secret}&`).update(stringToSign, 'utf8').digest('base64');
}

/** The time format of the API: ISO 8601 in UTC without fractional seconds. */
const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const aliyun: SmsProvider = {
  name: 'aliyun',
  defaultEndpoint: 'https://dysmsapi.aliyuncs.com',
  defaultRegion: 'cn-hangzhou',

  async send(egress, account, message, now) {
    const params: Record<string, string> = {
      Action: 'SendSms',
      Version: VERSION,
      Format: 'JSON',
      RegionId: account.region,
      AccessKeyId: account.accessKeyId,
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      SignatureNonce: randomUUID(),
      Timestamp: isoSeconds(now),
      // domestic numbers may carry 86; international ones are country code + number, no "+"
      PhoneNumbers: message.phone.replace(/^\+/, ''),
      SignName: account.signName,
      TemplateCode: message.templateId,
    };
    if (message.params.length) {
      params.TemplateParam = JSON.stringify(Object.fromEntries(message.params.map((p) => [p.name, p.value])));
    }
    const signature = rpcSignature('POST', params, account.accessKeySecret);
    // POST keeps the parameters (and the signature) out of URLs that proxies and logs record
    const res = await egress.request(new URL('/', account.endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `${canonicalQuery(params)}&Signature=${percentEncode(signature)}`,
      maxRedirects: 0,
    });
    const json = jsonOf(res.body) as { Code?: string; Message?: string; BizId?: string } | null;
    if (json?.Code === 'OK') return { ok: true, messageId: json.BizId ?? null };
    if (json?.Code) return { ok: false, error: `${json.Code}: ${json.Message ?? ''}`.trim() };
    return { ok: false, error: `HTTP ${res.status}: not an SMS API answer` };
  },
};
