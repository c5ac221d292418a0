import { hkdfSync } from 'node:crypto';
import type { AppContext } from '../../../platform/context.ts';
import type { SecretKey } from '../../../platform/crypto/secrets.ts';
import { SIGNATURE_HEADER, signPayload } from '../../../platform/egress/signing.ts';
import type { MessagingSettings } from '../settings.ts';
import { absoluteLink, deliverEach, postJson, renderedTexts } from './delivery-helpers.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from './types.ts';

type KeyHolder = { config: { secretKeys: SecretKey[] } };

/*
 * The per-tenant signing secret is derived, not stored: HKDF-SHA256 over a SECRET_KEYS key with
 * the tenant in `info`. There is nothing to create, migrate or encrypt; tenants cannot read one
 * another's secret; and HKDF is one-way, so showing a tenant its secret reveals nothing about the
 * key. It is not a `messaging` setting because settings are plaintext, shown in every admin
 * settings view and copied with them; the secret is shown only by an admin action calling
 * webhookSigningSecret(). It rotates with SECRET_KEYS: while an older key is still listed, every
 * delivery carries one `v1=` signature per key (signing.ts allows several), so receivers can move
 * to the new secret without losing deliveries. A tenant cannot rotate its secret on its own; a
 * stored, encrypted per-tenant secret is the step to take if that is ever needed.
 */
function deriveSecret(key: Buffer, tenantId: number | null): string {
  const info = `notification-webhook:${tenantId ?? 'platform'}`;
  return Buffer.from(hkdfSync('sha256', key, 'atrium', info, 32)).toString('base64url');
}

/** The secret a tenant's receivers verify notification webhooks with (the current key's). */
export function webhookSigningSecret(ctx: KeyHolder, tenantId: number | null): string {
  const current = ctx.config.secretKeys[0];
  if (!current) throw new Error('no SECRET_KEYS key is configured');
  return deriveSecret(current.key, tenantId);
}

/** The signature header of `body`: the current key's signature first, then one per older key. */
export function webhookSignature(ctx: KeyHolder, tenantId: number | null, body: string, now: Date): string {
  const [first, ...older] = ctx.config.secretKeys.map((k) => signPayload(deriveSecret(k.key, tenantId), body, now));
  if (!first) throw new Error('no SECRET_KEYS key is configured');
  // each value is `t=<t>,v1=<hex>` with the same t; the older ones add only their v1 part
  return [first, ...older.map((s) => s.slice(s.indexOf(',') + 1))].join(',');
}

/**
 * Webhook channel (spec §4.4 rule 6): POSTs `channelOptions.webhook.body` as given, or the envelope
 * below, to `channelOptions.webhook.url` or an external recipient's address; signed (signing.ts),
 * with the event key and the dispatch id (`X-Atrium-Delivery`, for the receiver's idempotency).
 */
export function createWebhookAdapter(ctx: AppContext): ChannelAdapter {
  function envelope(d: Delivery) {
    return {
      id: `ntf_${d.dispatchId}`,
      event: d.event.key,
      severity: d.event.severity,
      ...renderedTexts(d),
      link: absoluteLink(ctx, d.link),
      variables: d.variables,
      recipient: { type: d.contact.type, id: d.contact.id },
      tenantId: d.tenantId,
      // Delivery carries no event time: this is when the notification was sent
      sentAt: ctx.clock().toISOString(),
    };
  }

  async function one(d: Delivery): Promise<DeliveryOutcome> {
    const options = d.channelOptions.webhook;
    const url = options?.url || (d.contact.type === 'external' ? d.contact.address : null);
    if (!url) return { status: 'unreachable', detail: 'no webhook URL' };
    const body = JSON.stringify(options?.body !== undefined ? options.body : envelope(d));
    return postJson(ctx, url, body, {
      [SIGNATURE_HEADER]: webhookSignature(ctx, d.tenantId, body, ctx.clock()),
      'x-atrium-event': d.event.key,
      'x-atrium-delivery': String(d.dispatchId),
    });
  }

  return {
    channel: 'webhook',
    available: async (tenantId) =>
      (await ctx.settings.effective<MessagingSettings>('messaging', tenantId)).webhookEnabled,
    deliver: (batch) => deliverEach(batch, one),
  };
}
