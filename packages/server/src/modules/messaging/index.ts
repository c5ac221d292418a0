import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { ModuleEvents } from '../../platform/events/types.ts';
import { createAnnouncements } from './announcements/index.ts';
import { createCatalog } from './catalog/catalog.ts';
import { createChatAdapter } from './channels/chat.ts';
import { createChannelRegistry } from './channels/registry.ts';
import { createWebhookAdapter } from './channels/webhook.ts';
import type { MessagingArea, MessagingDeps } from './deps.ts';
import { createDeliverer } from './dispatch/deliver-service.ts';
import { expandOutbox } from './dispatch/expand-service.ts';
import { dispatchJobs } from './dispatch/jobs.ts';
import { createNotifier } from './dispatch/notify-service.ts';
import { createEmail } from './email/index.ts';
import { createInApp } from './inapp/index.ts';
import { createPolicies } from './policies/index.ts';
import { createPush } from './push/index.ts';
import { messagingSettings } from './settings.ts';
import { createSms } from './sms/index.ts';

export type { EventKey, EventVariables } from '../../platform/events/types.ts';
export type { AudienceTarget, ContactRow } from './deps.ts';
export type { Notifier, NotifyInput } from './dispatch/notify-service.ts';
export { messagingEvents } from './events.ts';

/**
 * The notification center (spec §1.4, §2.3, §4.4): the event catalog, one dispatch entry point
 * (notify / notifyWithin), six channels, preferences, quiet hours, digests and the delivery trace.
 */
export function createMessagingModule(ctx: AppContext, deps: MessagingDeps, events: readonly ModuleEvents[]) {
  const catalog = createCatalog(events);
  ctx.settingsRegistry.register(messagingSettings);
  const channels = createChannelRegistry();
  const email = createEmail(ctx, deps);
  const areas: MessagingArea[] = [
    createInApp(ctx, deps),
    email,
    createSms(ctx, deps),
    createPush(ctx, deps),
    createAnnouncements(ctx, deps),
  ];
  for (const area of areas) if (area.adapter) channels.register(area.adapter);
  channels.register(createWebhookAdapter(ctx));
  channels.register(createChatAdapter(ctx));

  const jobs = ctx.jobs.register(dispatchJobs, () => ({ ctx, expand: process, deliverer, notifier, catalog }));
  const notifier = createNotifier(ctx, catalog, jobs.outbox);
  const deliverer = createDeliverer(ctx, channels, catalog);
  /** expansion, then delivery of what it decided to send now (spec §3.6: flushed right after the write) */
  const process = async (outboxId: number) => {
    if (await expandOutbox(ctx, { catalog, registry: channels, contacts: deps }, outboxId))
      await deliverer.forOutbox(outboxId);
  };
  areas.push(createPolicies(ctx, catalog));

  return {
    catalog,
    channels,
    notify: notifier.notify,
    notifyWithin: notifier.notifyWithin,
    /** expands and delivers one outbox row now (tests, and the queue handler) */
    process,
    /** the health check of the platform's SMTP server */
    probeMail: email.probe,
    async register(app: FastifyInstance) {
      for (const area of areas) area.register(app);
    },
  };
}

export type MessagingModule = ReturnType<typeof createMessagingModule>;
