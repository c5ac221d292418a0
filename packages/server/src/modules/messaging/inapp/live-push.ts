import type { AppContext } from '../../../platform/context.ts';
import type { InAppMessageType } from './tables.ts';

export const INAPP_MESSAGE_TOPIC = 'inapp.message';

export type NewMessageNote = {
  userId: number;
  eventKey: string | null;
  title: string;
  link: string | null;
  type: InAppMessageType;
};

/**
 * Tells the recipients' open consoles that messages arrived: one `inapp.message` event per
 * distinct payload (one per batch when every recipient got the same text), addressed to its
 * users. The messages are written already, so a failed push is logged and never thrown.
 */
export async function pushNewMessages(
  ctx: Pick<AppContext, 'realtime' | 'log'>,
  tenantId: number | null,
  notes: NewMessageNote[],
): Promise<void> {
  const groups = new Map<string, { payload: Omit<NewMessageNote, 'userId'>; userIds: Set<number> }>();
  for (const { userId, ...payload } of notes) {
    const key = JSON.stringify([payload.eventKey, payload.title, payload.link, payload.type]);
    const group = groups.get(key) ?? { payload, userIds: new Set<number>() };
    group.userIds.add(userId);
    groups.set(key, group);
  }
  for (const { payload, userIds } of groups.values()) {
    try {
      await ctx.realtime.publish({ topic: INAPP_MESSAGE_TOPIC, tenantId, userIds: [...userIds], payload });
    } catch (err) {
      ctx.log.error({ err, tenantId, topic: INAPP_MESSAGE_TOPIC, users: userIds.size }, 'in-app message push failed');
    }
  }
}
