import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

/** What a message is: an event notification, a system message, or one an administrator sent by hand. */
export type InAppMessageType = 'notification' | 'system' | 'manual';

/**
 * In-app templates (spec §2.3): plain text with `{{var}}` placeholders, every placeholder declared
 * in `variables`. Codes are unique per tenant and among the platform's (tenant_id 0), whose
 * templates serve tenants that have none of their own.
 */
export const inAppTemplates = pgTable(
  'in_app_templates',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    title: text('title').notNull(),
    content: text('content').notNull(),
    type: text('type').$type<InAppMessageType>().notNull().default('notification'),
    variables: text('variables').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('in_app_templates_tenant_code').on(t.tenantId, t.code)],
);

/**
 * In-app messages (spec §2.3), one row per recipient user. `dedupe_key` (`dispatch:<id>` for
 * notifications) makes a retried delivery write nothing twice.
 */
export const inAppMessages = pgTable(
  'in_app_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id').notNull(),
    templateId: integer('template_id').references(() => inAppTemplates.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    type: text('type').$type<InAppMessageType>().notNull(),
    isRead: boolean('is_read').notNull().default(false),
    readAt: timestamptz('read_at'),
    /** the event key for notifications, `manual` for administrator sends */
    source: text('source').notNull(),
    eventKey: text('event_key'),
    senderId: integer('sender_id'),
    /** deep link into the console */
    link: text('link'),
    dedupeKey: text('dedupe_key'),
    createdAt: createdAt(),
  },
  (t) => [
    // "my messages" and "my unread count": tenant, user, read flag, newest first
    index('in_app_messages_inbox').on(t.tenantId, t.userId, t.isRead, t.id.desc()),
    index('in_app_messages_tenant_created').on(t.tenantId, t.createdAt),
    uniqueIndex('in_app_messages_dedupe').on(t.tenantId, t.dedupeKey).where(sql`${t.dedupeKey} is not null`),
  ],
);
