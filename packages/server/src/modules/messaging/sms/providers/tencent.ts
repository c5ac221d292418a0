import { createHash, createHmac } from 'node:crypto';
import { jsonOf, type SmsProvider } from './types.ts';

/**
 * Tencent Cloud SMS, SendSms (API 3.0, version 2021-01-11), signed with TC3-HMAC-SHA256.
 * Signature: "Signature v3" of TencentCloud API 3.0 (https://www.tencentcloud.com/document/api/1021/34193)
 * API: https://www.tencentcloud.com/document/api/382/40536
 */
const SERVICE = 'sms';
const VERSION = '2021-01-11';
const CONTENT_TYPE = 'application/json; charset=utf-8';
const SIGNED_HEADERS = 'content-type;host';

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

/**
 * The Authorization header: canonical request → string to sign → key derived from the secret,
 * the UTC date and the service → hex HMAC-SHA256. Only content-type and host are signed.
 */
export function tc3Authorization(a: {
  secretId: string;
  secretKey: string;
  host: string;
  payload: string;
  timestamp: number;
  /** the API's service name; `sms` here, others in the documentation's examples */
  service?: string;
}): string {
  const service = a.service ?? SERVICE;
  const date = new Date(a.timestamp * 1000).toISOString().slice(0, 10);
  const canonicalHeaders = `content-type:${CONTENT_TYPE}\nhost:${a.host.toLowerCase()}\n`;
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, SIGNED_HEADERS, sha256Hex(a.payload)].join('\n');
  const scope = `${date}/${service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(a.timestamp), scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(`TC3${a.secretKey}`, date), service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `TC3-HMAC-SHA256 Credential=${a.secretId}/${scope}, SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`;
}

/** E.164 as PhoneNumberSet wants it; a number without a country code is taken as mainland China's. */
export const e164 = (phone: string) => (phone.startsWith('+') ? phone : `+86${phone}`);

type Answer = {
  Response?: {
    Error?: { Code?: string; Message?: string };
    SendStatusSet?: { Code?: string; Message?: string; SerialNo?: string }[];
  };
};

export const tencent: SmsProvider = {
  name: 'tencent',
  defaultEndpoint: 'https://sms.tencentcloudapi.com',
  defaultRegion: 'ap-guangzhou',

  async send(egress, account, message, now) {
    const url = new URL('/', account.endpoint);
    const payload = JSON.stringify({
      PhoneNumberSet: [e164(message.phone)],
      SmsSdkAppId: account.sdkAppId ?? '',
      SignName: account.signName,
      TemplateId: message.templateId,
      TemplateParamSet: message.params.map((p) => p.value),
    });
    const timestamp = Math.floor(now.getTime() / 1000);
    const res = await egress.request(url, {
      method: 'POST',
      body: payload,
      maxRedirects: 0,
      headers: {
        authorization: tc3Authorization({
          secretId: account.accessKeyId,
          secretKey: account.accessKeySecret,
          host: url.host,
          payload,
          timestamp,
        }),
        'content-type': CONTENT_TYPE,
        'x-tc-action': 'SendSms',
        'x-tc-version': VERSION,
        'x-tc-timestamp': String(timestamp),
        'x-tc-region': account.region,
      },
    });
    const answer = (jsonOf(res.body) as Answer | null)?.Response;
    const error = answer?.Error;
    if (error) return { ok: false, error: `${error.Code ?? 'Error'}: ${error.Message ?? ''}`.trim() };
    const status = answer?.SendStatusSet?.[0];
    if (status?.Code === 'Ok') return { ok: true, messageId: status.SerialNo ?? null };
    if (status) return { ok: false, error: `${status.Code ?? 'Error'}: ${status.Message ?? ''}`.trim() };
    return { ok: false, error: `HTTP ${res.status}: not an SMS API answer` };
  },
};
