import type { AppContext } from '../../../platform/context.ts';
import { deliverEach } from '../channels/delivery-helpers.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from '../channels/types.ts';
import type { MessagingSettings } from '../settings.ts';
import { configs } from './config-repository.ts';
import type { SmsSendLogRow } from './log-repository.ts';
import type { SmsAttempt, SmsSender } from './sender.ts';
import { activeTemplate } from './template-repository.ts';

const outcomeOf = (row: SmsSendLogRow): DeliveryOutcome =>
  row.status === 'sent'
    ? { status: 'sent', providerMessageId: row.providerMessageId }
    : { status: 'failed', error: row.error ?? 'SMS send failed' };

/**
 * The sms channel (spec §4.4 rule 6): a recipient's phone (an external recipient's address), the
 * event's SMS template (channelOptions may name another) of the tenant or else the platform, and
 * the configuration that template sends with. Providers send only templates registered with
 * them, so an event without an SMS template cannot go out by SMS: that delivery fails, saying so.
 */
export function createSmsAdapter(ctx: AppContext, sender: SmsSender): ChannelAdapter {
  async function one(d: Delivery): Promise<DeliveryOutcome> {
    const phone = d.contact.phone || (d.contact.type === 'external' ? d.contact.address : null);
    if (!phone) return { status: 'unreachable', detail: 'no phone number' };
    const code = d.channelOptions.templates?.sms ?? d.event.templates.sms ?? null;
    const attempt: SmsAttempt = {
      tenantId: d.tenantId,
      phone,
      templateCode: code,
      variables: d.variables,
      dispatchId: d.dispatchId,
      eventKey: d.event.key,
    };
    if (!code) {
      return outcomeOf(
        await sender.fail(
          attempt,
          `The event ${d.event.key} has no SMS template; SMS providers send only registered templates`,
        ),
      );
    }
    const template = await activeTemplate(ctx.db, d.tenantId, code);
    if (!template) return outcomeOf(await sender.fail(attempt, `No active SMS template with the code "${code}"`));
    return outcomeOf(await sender.send(attempt, template));
  }

  return {
    channel: 'sms',
    // the channel switch of the messaging settings, and a configuration to send with
    available: async (tenantId) =>
      (await ctx.settings.effective<MessagingSettings>('messaging', tenantId)).smsEnabled &&
      (await configs.effectiveDefault(ctx.db, tenantId)) !== null,
    deliver: (batch) => deliverEach(batch, one),
  };
}
