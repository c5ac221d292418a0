import type { Egress } from '../../../../platform/egress/client.ts';
import type { SmsProviderName } from '../tables.ts';

/** What a provider call needs of a configuration, with its secret decrypted. */
export type SmsAccount = {
  endpoint: string;
  region: string;
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  /** Tencent's SmsSdkAppId */
  sdkAppId: string | null;
};

export type SmsMessage = {
  phone: string;
  /** the provider-side template code (Aliyun) or id (Tencent) */
  templateId: string;
  /** the template's parameters in their declared order */
  params: { name: string; value: string }[];
};

/** A provider's answer: accepted with its message id, or its error code and text. */
export type SmsResult = { ok: true; messageId: string | null } | { ok: false; error: string };

export type SmsProvider = {
  name: SmsProviderName;
  defaultEndpoint: string;
  defaultRegion: string;
  /** sends one message; a refused or failed call is `ok: false`, an egress failure throws */
  send(egress: Pick<Egress, 'request'>, account: SmsAccount, message: SmsMessage, now: Date): Promise<SmsResult>;
};

/** A response body as JSON, or null when it is not JSON. */
export function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}
