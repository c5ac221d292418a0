import { index, integer, pgTable, primaryKey, serial, text, unique } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

export type AnnouncementPriority = 'low' | 'normal' | 'high' | 'urgent';
export type AnnouncementTargetType = 'all' | 'targeted';
export type AnnouncementStatus = 'draft' | 'published' | 'withdrawn';
export type RecipientType = 'user' | 'role' | 'dept';

/**
 * Announcements (spec §2.3): sanitized HTML published to a whole tenant (`all`) or to the users
 * reached by its recipients (`targeted`). Users see published ones until `expire_time`.
 */
export const announcements = pgTable(
  'announcements',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    title: text('title').notNull(),
    /** sanitized HTML */
    content: text('content').notNull(),
    type: text('type').notNull().default('notice'),
    priority: text('priority').$type<AnnouncementPriority>().notNull().default('normal'),
    targetType: text('target_type').$type<AnnouncementTargetType>().notNull().default('all'),
    publishStatus: text('publish_status').$type<AnnouncementStatus>().notNull().default('draft'),
    publishTime: timestamptz('publish_time'),
    expireTime: timestamptz('expire_time'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    index('announcements_tenant_status').on(t.tenantId, t.publishStatus, t.publishTime),
  ],
);

/** Who a targeted announcement reaches: users, roles, departments (with their sub-departments). */
export const announcementRecipients = pgTable(
  'announcement_recipients',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    announcementId: integer('announcement_id')
      .notNull()
      .references(() => announcements.id, { onDelete: 'cascade' }),
    targetType: text('target_type').$type<RecipientType>().notNull(),
    targetId: integer('target_id').notNull(),
  },
  (t) => [
    unique('announcement_recipients_target').on(t.announcementId, t.targetType, t.targetId),
    // "which announcements reach this role / department / user" for the inbox
    index('announcement_recipients_by_target').on(t.targetType, t.targetId),
  ],
);

/** One row per user who read an announcement; its absence is "unread". */
export const announcementReads = pgTable(
  'announcement_reads',
  {
    tenantId: tenantKey('tenant_id'),
    announcementId: integer('announcement_id')
      .notNull()
      .references(() => announcements.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
    readAt: timestamptz('read_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.announcementId, t.userId] }), index('announcement_reads_user').on(t.userId)],
);
