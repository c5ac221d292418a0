import type { AppContext } from '../../../platform/context.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from '../channels/types.ts';
import { addressOf, composeDelivery, templateCodeOf } from './compose.ts';
import { configs } from './config-repository.ts';
import type { EmailSender, OutgoingMail } from './sender.ts';
import { activeTemplatesByCode } from './template-repository.ts';

/**
 * The email channel (spec §4.4 rule 6): the tenant's SMTP configuration (else the platform's),
 * its email templates (else the platform's, else the event's built-in texts), a send log per
 * attempt and the RFC 8058 unsubscribe link. A batch is one event of one tenant.
 */
export function createEmailAdapter(ctx: AppContext, sender: EmailSender): ChannelAdapter {
  return {
    channel: 'email',
    batchSize: 50,

    async available(tenantId) {
      return (await configs.effective(ctx.db, tenantId))?.enabled === true;
    },

    async deliver(batch: Delivery[]): Promise<DeliveryOutcome[]> {
      const first = batch[0];
      if (!first) return [];
      const tenantId = first.tenantId;
      const outcomes: (DeliveryOutcome | null)[] = batch.map((d) =>
        addressOf(d) ? null : { status: 'unreachable', detail: 'the recipient has no email address' },
      );
      const pending = batch.flatMap((d, i) => (outcomes[i] ? [] : [{ d, i }]));
      if (pending.length === 0) return outcomes as DeliveryOutcome[];

      const config = await configs.effective(ctx.db, tenantId);
      if (!config?.enabled) {
        // switched off between the availability check and now
        for (const { i } of pending) outcomes[i] = { status: 'failed', error: 'email is not configured or disabled' };
        return outcomes as DeliveryOutcome[];
      }
      const codes = [...new Set(pending.map(({ d }) => templateCodeOf(d)).filter((c): c is string => c !== null))];
      const templates = await activeTemplatesByCode(ctx.db, tenantId, codes);
      const mails: OutgoingMail[] = pending.map(({ d }) => {
        const code = templateCodeOf(d);
        return composeDelivery(d, addressOf(d) as string, (code && templates.get(code)) || null, ctx.links);
      });
      const results = await sender.sendAll(tenantId, config, mails);
      results.forEach((r, k) => {
        outcomes[(pending[k] as { i: number }).i] =
          r.status === 'sent'
            ? { status: 'sent', providerMessageId: r.messageId }
            : r.retryable
              ? { status: 'retry', error: r.error }
              : { status: 'failed', error: r.error };
      });
      return outcomes as DeliveryOutcome[];
    },
  };
}
