import { eq } from 'drizzle-orm';
import type { ChannelOptions, Delivery } from '../../src/modules/messaging/channels/types.ts';
import { inAppMessages } from '../../src/modules/messaging/inapp/tables.ts';
import { platformKey } from '../../src/platform/db/tenant-key.ts';
import type { EventDef } from '../../src/platform/events/types.ts';
import type { TestApp } from '../helpers/app.ts';
import { catalog } from '../helpers/catalog.ts';
import type { PushMessage } from '../helpers/ws-client.ts';
import { deliveryOf } from './delivery-fixture.ts';

/** Helpers of the in-app message tests. */
export type MessageRow = typeof inAppMessages.$inferSelect;

/** A message written straight into the table (another tenant's fixture, or a known starting state). */
export async function messageRow(
  t: TestApp,
  tenantId: number | null,
  userId: number,
  values: Partial<typeof inAppMessages.$inferInsert> = {},
): Promise<number> {
  const [row] = await t.database.db
    .insert(inAppMessages)
    .values({
      tenantId: platformKey(tenantId),
      userId,
      title: 'Hello',
      content: 'Body',
      type: 'system',
      source: 'manual',
      ...values,
    })
    .returning({ id: inAppMessages.id });
  if (!row) throw new Error('message insert failed');
  return row.id;
}

export async function messageById(t: TestApp, id: number): Promise<MessageRow | undefined> {
  const [row] = await t.database.db.select().from(inAppMessages).where(eq(inAppMessages.id, id));
  return row;
}

export async function messagesOf(t: TestApp, userId: number): Promise<MessageRow[]> {
  return t.database.db.select().from(inAppMessages).where(eq(inAppMessages.userId, userId)).orderBy(inAppMessages.id);
}

/** Three messages of one user, oldest first: unread notification, unread manual, read system. */
export async function inboxOf(t: TestApp, tenantId: number, userId: number) {
  const a = await messageRow(t, tenantId, userId, {
    title: 'Doc published',
    type: 'notification',
    source: 'wiki.doc.published',
    eventKey: 'wiki.doc.published',
  });
  const b = await messageRow(t, tenantId, userId, {
    title: 'Lunch at noon',
    content: 'Pizza',
    type: 'manual',
  });
  const c = await messageRow(t, tenantId, userId, {
    title: 'Maintenance',
    type: 'system',
    isRead: true,
    readAt: new Date('2026-01-01T00:00:00Z'),
  });
  return [a, b, c] as const;
}

const published = catalog.get('wiki.doc.published') as EventDef;

/** A delivery of `wiki.doc.published` ("{{docTitle}} was published") to one admin user. */
export function userDelivery(
  dispatchId: number,
  tenantId: number | null,
  userId: number,
  opts: {
    event?: EventDef;
    channelOptions?: ChannelOptions;
    variables?: Record<string, unknown>;
    link?: string | null;
  } = {},
): Delivery {
  return deliveryOf(opts.event ?? published, tenantId, {
    contact: { id: userId, key: `u:${userId}`, name: `user ${userId}` },
    variables: opts.variables ?? { docTitle: 'Handbook', actorName: 'Ann' },
    link: opts.link === undefined ? '/wiki/docs/handbook' : opts.link,
    channelOptions: opts.channelOptions,
    dispatchId,
  });
}

export const inAppPush = (title: string) => (m: PushMessage) => m.topic === 'inapp.message' && m.data.title === title;
