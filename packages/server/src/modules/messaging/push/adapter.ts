import type { AppContext } from '../../../platform/context.ts';
import { deliverEach, renderedTexts } from '../channels/delivery-helpers.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from '../channels/types.ts';
import type { MessagingSettings } from '../settings.ts';
import type { PushConfigService } from './config-service.ts';
import { activeUserDevices, deactivate } from './device-repository.ts';
import { type JPushAccount, jpushSend } from './jpush.ts';
import { pushLogs } from './log-repository.ts';

/**
 * The push channel (spec §4.4 rule 6): through the aggregation push provider to the recipient's
 * active bound devices, one provider call per recipient, each logged in push_send_logs. Only users
 * bind devices; members and external recipients are unreachable. Registration ids the provider
 * does not know (error 1011) are marked inactive, so later pushes skip them.
 */
export function createPushAdapter(ctx: AppContext, config: PushConfigService): ChannelAdapter {
  const { db, clock, egress } = ctx;

  async function one(d: Delivery, account: () => Promise<JPushAccount | null>): Promise<DeliveryOutcome> {
    if (d.contact.type !== 'user' || d.contact.id === null) {
      return { status: 'unreachable', detail: 'push reaches the bound devices of users only' };
    }
    const scope = { tenantId: d.tenantId };
    const devices = await activeUserDevices(db, scope, d.contact.id);
    if (devices.length === 0) return { status: 'unreachable', detail: 'no active bound device' };
    const acct = await account();
    if (!acct) return { status: 'failed', error: 'No enabled push configuration applies' };

    const ids = devices.map((x) => x.registrationId);
    // the app opens the link outside the console: absolute
    const link = ctx.links.resolve(d.link);
    const extras: Record<string, string> = { eventKey: d.event.key, ...(link ? { link } : {}) };
    let result: Awaited<ReturnType<typeof jpushSend>>;
    try {
      result = await jpushSend(egress, acct, ids, { ...renderedTexts(d), extras });
    } catch (err) {
      result = { ok: false, error: (err as Error).message, unknownAudience: false };
    }
    if (!result.ok && result.unknownAudience) await deactivate(db, scope, ids, clock());
    await pushLogs.insert(db, scope, {
      dispatchId: d.dispatchId,
      eventKey: d.event.key,
      userId: d.contact.id,
      registrationIds: ids,
      status: result.ok ? 'sent' : 'failed',
      providerMessageId: result.ok ? result.msgId : null,
      error: result.ok ? null : result.error.slice(0, 1000),
      createdAt: clock(),
    });
    return result.ok ? { status: 'sent', providerMessageId: result.msgId } : { status: 'failed', error: result.error };
  }

  return {
    channel: 'push',
    available: async (tenantId) =>
      (await ctx.settings.effective<MessagingSettings>('messaging', tenantId)).pushEnabled &&
      (await config.available(tenantId)),
    deliver(batch) {
      // one tenant per batch: its account is read (and its secret decrypted) once, when first needed
      let pending: Promise<JPushAccount | null> | null = null;
      const account = () => {
        pending ??= config.accountFor(batch[0]?.tenantId ?? null);
        return pending;
      };
      return deliverEach(batch, (d) => one(d, account));
    },
  };
}
