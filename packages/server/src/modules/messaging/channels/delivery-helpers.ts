import type { AppContext } from '../../../platform/context.ts';
import { EgressError } from '../../../platform/egress/errors.ts';
import { renderTemplate } from '../render.ts';
import type { Delivery, DeliveryOutcome } from './types.ts';

/** Outbound calls of the webhook and chat channels time out like alert webhooks (spec §8: 8 seconds). */
export const POST_TIMEOUT_MS = 8000;
/** Deliveries in flight per batch: a slow receiver holds one slot, not the whole batch. */
const CONCURRENCY = 8;

/** The event's built-in title and content with the variables filled in. */
export function renderedTexts(d: Delivery): { title: string; content: string } {
  return { title: renderTemplate(d.event.title, d.variables), content: renderTemplate(d.event.content, d.variables) };
}

/**
 * POSTs a JSON body through the egress guard (chat bots; webhooks go through the kernel's signed
 * webhook path). Redirects are not followed: a POST turned into a
 * GET by a redirect would look delivered without the body ever arriving.
 */
export async function postJson(
  ctx: Pick<AppContext, 'egress' | 'log'>,
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<DeliveryOutcome> {
  try {
    const res = await ctx.egress.request(url, {
      method: 'POST',
      body,
      timeoutMs: POST_TIMEOUT_MS,
      maxRedirects: 0,
      headers: { 'content-type': 'application/json', ...headers },
    });
    return res.status >= 200 && res.status < 300
      ? { status: 'sent' }
      : { status: 'failed', error: `HTTP ${res.status}` };
  } catch (err) {
    // the URL may hold a bot token, and the detail an internal address: logs only, never the outcome
    if (err instanceof EgressError) ctx.log.warn({ code: err.code, detail: err.detail }, 'notification post failed');
    return { status: 'failed', error: (err as Error).message };
  }
}

/** One outcome per delivery, in order, at most CONCURRENCY at a time; a throw is that item's failure. */
export async function deliverEach(
  batch: Delivery[],
  one: (d: Delivery) => Promise<DeliveryOutcome>,
): Promise<DeliveryOutcome[]> {
  const out = new Array<DeliveryOutcome>(batch.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < batch.length; i = next++) {
      out[i] = await one(batch[i] as Delivery).catch((err: unknown) => ({
        status: 'failed' as const,
        error: err instanceof Error ? err.message : String(err),
      }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, batch.length) }, worker));
  return out;
}
