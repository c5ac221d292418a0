import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantKey } from '../db/tenant-key.ts';

/**
 * Recent live events, kept 24 hours so a client that reconnects gets what it missed
 * (`lastEventId`). The serial id orders events across every instance.
 */
export const realtimeEvents = pgTable(
  'realtime_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    /** null = every signed-in user of the tenant */
    userIds: integer('user_ids').array(),
    topic: text('topic').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('realtime_events_created').on(t.createdAt)],
);
