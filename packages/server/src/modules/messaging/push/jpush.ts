import type { Egress } from '../../../platform/egress/client.ts';

/**
 * The aggregation push provider's REST API (JPush v3 "Push API": POST /v3/push, HTTP Basic
 * authentication with base64(appKey:masterSecret)), which relays to the vendor channels (APNs,
 * FCM, Huawei, Xiaomi…). https://docs.jiguang.cn/jpush/server/push/rest_api_v3_push
 */
export type JPushAccount = { endpoint: string; appKey: string; masterSecret: string; apnsProduction: boolean };
export type JPushNotification = { title: string; content: string; extras: Record<string, string> };
export type JPushResult =
  | { ok: true; msgId: string }
  /** `unknownAudience`: none of the registration ids is known to the provider (error 1011) */
  | { ok: false; error: string; unknownAudience: boolean };

/** "cannot find user by this audience": the registration ids are unknown or expired. */
const UNKNOWN_AUDIENCE = 1011;

export function pushBody(registrationIds: string[], n: JPushNotification, apnsProduction: boolean) {
  return {
    platform: 'all',
    audience: { registration_id: registrationIds },
    notification: {
      alert: n.content,
      android: { title: n.title, alert: n.content, extras: n.extras },
      ios: { alert: { title: n.title, body: n.content }, extras: n.extras },
    },
    options: { apns_production: apnsProduction },
  };
}

export async function jpushSend(
  egress: Pick<Egress, 'request'>,
  account: JPushAccount,
  registrationIds: string[],
  n: JPushNotification,
): Promise<JPushResult> {
  const credentials = Buffer.from(`${account.appKey}:${account.masterSecret}`).toString('base64');
  const res = await egress.request(`${account.endpoint.replace(/\/+$/, '')}/v3/push`, {
    method: 'POST',
    body: JSON.stringify(pushBody(registrationIds, n, account.apnsProduction)),
    maxRedirects: 0,
    headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/json', accept: 'application/json' },
  });
  let json: { msg_id?: string | number; error?: { code?: number; message?: string } } | null = null;
  try {
    json = JSON.parse(res.body.toString('utf8'));
  } catch {
    // not JSON: the HTTP status is all there is to report
  }
  if (res.status >= 200 && res.status < 300 && json?.msg_id !== undefined && !json.error) {
    return { ok: true, msgId: String(json.msg_id) };
  }
  const code = json?.error?.code;
  return {
    ok: false,
    error: code !== undefined ? `JPush ${code}: ${json?.error?.message ?? ''}`.trim() : `HTTP ${res.status}`,
    unknownAudience: code === UNKNOWN_AUDIENCE,
  };
}
