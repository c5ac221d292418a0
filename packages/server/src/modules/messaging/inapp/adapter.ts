import type { AppContext } from '../../../platform/context.ts';
import type { ChannelAdapter, Delivery, DeliveryOutcome } from '../channels/types.ts';
import { renderTemplate } from '../render.ts';
import { pushNewMessages } from './live-push.ts';
import { idsByDedupeKey, insertMessages, type NewMessage } from './message-repository.ts';
import { activeTemplateByCode, type TemplateRow } from './template-repository.ts';

const dedupeKeyOf = (d: Delivery) => `dispatch:${d.dispatchId}`;
/** In-app messages are for admin users; members and external addresses have no inbox here. */
const userIdOf = (d: Delivery) => (d.contact.type === 'user' ? d.contact.id : null);

/**
 * The inapp channel (spec §4.4 rule 6): writes in_app_messages for user recipients. A batch is one
 * multi-row insert keyed by dispatch id (a retried batch writes nothing twice) and one live push;
 * nothing is queried per recipient. The channel switch is the dispatcher's (messaging settings).
 */
export function createInAppAdapter(ctx: AppContext): ChannelAdapter {
  /**
   * The template a delivery names (per-dispatch option, else the event's), looked up once per
   * batch and code: the tenant's active one, else the platform's; none → the event's built-in text.
   */
  function templateFinder() {
    const found = new Map<string, Promise<TemplateRow | null>>();
    return async (d: Delivery): Promise<TemplateRow | null> => {
      const code = d.channelOptions.templates?.inapp ?? d.event.templates.inapp;
      if (!code) return null;
      const key = `${d.tenantId}:${code}`;
      const lookup = found.get(key) ?? activeTemplateByCode(ctx.db, d.tenantId, code);
      found.set(key, lookup);
      return lookup;
    };
  }

  function messageOf(d: Delivery, userId: number, template: TemplateRow | null) {
    return {
      tenantId: d.tenantId,
      userId,
      templateId: template?.id ?? null,
      title: renderTemplate(template?.title ?? d.event.title, d.variables),
      content: renderTemplate(template?.content ?? d.event.content, d.variables),
      type: template?.type ?? 'notification',
      source: d.event.key,
      eventKey: d.event.key,
      link: d.link,
      dedupeKey: dedupeKeyOf(d),
    } satisfies NewMessage;
  }

  return {
    channel: 'inapp',
    batchSize: 500,
    available: async () => true,

    async deliver(batch) {
      const templateOf = templateFinder();
      const rows = await Promise.all(
        batch.flatMap((d) => {
          const userId = userIdOf(d);
          return userId === null ? [] : [templateOf(d).then((template) => messageOf(d, userId, template))];
        }),
      );
      const written = await insertMessages(ctx.db, rows);

      // One tenant per batch (ChannelAdapter contract). A retry finds its rows written already:
      // they count as sent, with the id written the first time, and are not pushed again.
      const tenantId = batch[0]?.tenantId ?? null;
      const idByKey = new Map(written.map((m) => [m.dedupeKey, m.id]));
      const skipped = rows.map((r) => r.dedupeKey).filter((key) => !idByKey.has(key));
      for (const m of await idsByDedupeKey(ctx.db, tenantId, skipped)) idByKey.set(m.dedupeKey, m.id);

      const rowByKey = new Map<string | null, (typeof rows)[number]>(rows.map((r) => [r.dedupeKey, r]));
      await pushNewMessages(
        ctx,
        tenantId,
        written.flatMap((m) => {
          const row = rowByKey.get(m.dedupeKey);
          return row
            ? [{ userId: row.userId, eventKey: row.eventKey, title: row.title, link: row.link, type: row.type }]
            : [];
        }),
      );

      return batch.map((d): DeliveryOutcome => {
        if (userIdOf(d) === null) return { status: 'unreachable', detail: 'in-app messages reach admin users only' };
        const id = idByKey.get(dedupeKeyOf(d));
        return { status: 'sent', providerMessageId: id === undefined ? null : String(id) };
      });
    },
  };
}
