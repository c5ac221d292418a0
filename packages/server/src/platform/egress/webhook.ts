import { performance } from 'node:perf_hooks';
import { VERSION } from '../../version.ts';
import type { AppContext } from '../context.ts';
import { SecretError } from '../crypto/secrets.ts';
import { EgressError, type EgressErrorCode } from './errors.ts';
import { SIGNATURE_HEADER, signPayload } from './signing.ts';

/**
 * The one way Atrium sends a webhook (docs/webhooks.md): a JSON body POSTed through the egress
 * guard, signed (signing.ts), with the event's type and id in headers. Redirects are not
 * followed: a POST turned into a GET by a redirect would look delivered without the body.
 * Retrying and recording are the sender's; this answers what one attempt came to.
 */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A 2xx answer with a larger body still fails: receivers should answer briefly. */
export const WEBHOOK_MAX_RESPONSE_BYTES = 1024 * 1024;

export type WebhookRequest = {
  url: string;
  /**
   * The signing secrets, current first (more than one while a secret is being rotated), read when
   * signing: one that no longer decrypts (SecretError) is a permanent failure, `secret_unavailable`.
   */
  secrets: () => readonly string[];
  eventType: string;
  /** the same for every retry and redelivery of one event: receivers deduplicate on it */
  eventId: string;
  /** the sender's id of this delivery (the same across its retries), when it has one */
  deliveryId?: string;
  /** the JSON text exactly as sent and signed */
  body: string;
  /** default WEBHOOK_TIMEOUT_MS */
  timeoutMs?: number;
};

/**
 * delivered: a 2xx came back. retryable: the receiver or the network may recover (5xx, 408,
 * 425, 429, timeout, unreachable). permanent: the same request would fail again (another 4xx,
 * a redirect, a destination the egress rules refuse, a secret that no longer decrypts).
 */
export type WebhookResult = 'delivered' | 'retryable' | 'permanent';

export type WebhookOutcome = {
  result: WebhookResult;
  /** the receiver's HTTP status; null when none came */
  status: number | null;
  /** null when delivered; else `HTTP <status>` or the egress error's public message (no address) */
  reason: string | null;
  /** the egress error code when the call itself failed */
  code: EgressErrorCode | null;
  /** the receiver's answer, when one came */
  response: Buffer | null;
  durationMs: number;
};

const SECRET_UNAVAILABLE = 'secret_unavailable: the signing secret does not decrypt with the configured SECRET_KEYS';

const PERMANENT_CODES = new Set<EgressErrorCode>([
  'egress.bad_url',
  'egress.bad_scheme',
  'egress.blocked_host',
  'egress.blocked_address',
  'egress.too_many_redirects',
]);
const RETRYABLE_STATUSES = new Set([408, 425, 429]);

function resultOfStatus(status: number): WebhookResult {
  if (status >= 200 && status < 300) return 'delivered';
  return status >= 500 || RETRYABLE_STATUSES.has(status) ? 'retryable' : 'permanent';
}

/** What a delivery log records of a failure: the code first when there is one (`egress.timeout: …`). */
export const failureText = (o: WebhookOutcome): string | null =>
  o.reason === null ? null : o.code ? `${o.code}: ${o.reason}` : o.reason;

/** Sends one attempt. Never throws: every failure is an outcome. */
export async function sendWebhook(
  ctx: Pick<AppContext, 'egress' | 'log' | 'clock'>,
  r: WebhookRequest,
): Promise<WebhookOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await ctx.egress.request(r.url, {
      method: 'POST',
      body: r.body,
      timeoutMs: r.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
      maxRedirects: 0,
      maxResponseBytes: WEBHOOK_MAX_RESPONSE_BYTES,
      headers: {
        'content-type': 'application/json',
        'user-agent': `Atrium-Webhooks/${VERSION}`,
        [SIGNATURE_HEADER]: signPayload(r.secrets(), r.body, ctx.clock()),
        'x-atrium-event': r.eventType,
        'x-atrium-event-id': r.eventId,
        ...(r.deliveryId === undefined ? {} : { 'x-atrium-delivery': r.deliveryId }),
      },
    });
    const result = resultOfStatus(res.status);
    const reason = result === 'delivered' ? null : `HTTP ${res.status}`;
    return outcome(result, res.status, reason, null, res.body, elapsed());
  } catch (err) {
    const where = { eventType: r.eventType, eventId: r.eventId };
    if (err instanceof SecretError) {
      ctx.log.warn({ err, ...where }, 'webhook signing secret unavailable');
      return outcome('permanent', null, SECRET_UNAVAILABLE, null, null, elapsed());
    }
    if (!(err instanceof EgressError)) {
      ctx.log.error({ err, ...where }, 'webhook could not be sent');
      return outcome('retryable', null, 'internal error while sending', null, null, elapsed());
    }
    // the refused address (detail) goes to the log only: the outcome may be shown to a tenant
    ctx.log.warn({ code: err.code, detail: err.detail, ...where }, 'webhook delivery failed');
    const result = PERMANENT_CODES.has(err.code) ? 'permanent' : 'retryable';
    return outcome(result, null, err.message, err.code, null, elapsed());
  }
}

function outcome(
  result: WebhookResult,
  status: number | null,
  reason: string | null,
  code: EgressErrorCode | null,
  response: Buffer | null,
  durationMs: number,
): WebhookOutcome {
  return { result, status, reason, code, response, durationMs };
}
