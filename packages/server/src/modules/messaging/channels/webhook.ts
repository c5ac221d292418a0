import { hkdfSync } from 'node:crypto';
import type { AppContext } from '../../../platform/context.ts';
import type { SecretKey } from '../../../platform/crypto/secrets.ts';
import { sendWebhook } from '../../../platform/egress/webhook.ts';
import type { MessagingSettings } from '../settings.ts';
import { deliverEach, POST_TIMEOUT_MS, renderedTexts } from './delivery-helpers.ts';
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

/** The secrets signing a tenant's notification webhooks: the current key's first, then one per older key. */
export function webhookSecrets(ctx: KeyHolder, tenantId: number | null): string[] {
  return ctx.config.secretKeys.map((k) => deriveSecret(k.key, tenantId));
}

/**
 * Webhook channel (spec §4.4 rule 6): POSTs `channelOptions.webhook.body` as given, or the envelope
 * below, to `channelOptions.webhook.url` or an external recipient's address, through the kernel's
 * webhook path (signed; the event key, `ntf_<dispatch id>` as event id and the dispatch id as
 * `X-Atrium-Delivery`, for the receiver's idempotency).
 */
export function createWebhookAdapter(ctx: AppContext): ChannelAdapter {
  function envelope(d: Delivery) {
    return {
      id: `ntf_${d.dispatchId}`,
      event: d.event.key,
      severity: d.event.severity,
      ...renderedTexts(d),
      link: ctx.links.resolve(d.link),
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
    const o = await sendWebhook(ctx, {
      url,
      secrets: () => webhookSecrets(ctx, d.tenantId),
      eventType: d.event.key,
      eventId: `ntf_${d.dispatchId}`,
      deliveryId: String(d.dispatchId),
      body,
      timeoutMs: POST_TIMEOUT_MS,
    });
    return o.result === 'delivered' ? { status: 'sent' } : { status: 'failed', error: o.reason ?? 'failed' };
  }

  return {
    channel: 'webhook',
    available: async (tenantId) =>
      (await ctx.settings.effective<MessagingSettings>('messaging', tenantId)).webhookEnabled,
    deliver: (batch) => deliverEach(batch, one),
  };
}
