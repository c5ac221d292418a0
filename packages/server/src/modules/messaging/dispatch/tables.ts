import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, serial, smallint, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';
import type { Channel, ChannelOptions, Recipient, RecipientType } from '../channels/types.ts';

export type ChannelPolicy = { only?: Channel[]; enable?: Channel[]; disable?: Channel[] };

/** What notify() was called with, kept verbatim on the outbox row. */
export type OutboxInput = {
  recipients: Recipient[];
  variables: Record<string, unknown>;
  channels?: ChannelPolicy;
  channelOptions?: ChannelOptions;
  link?: string | null;
  idempotencyKey?: string | null;
};

/**
 * notify() writes one row here, inside the caller's transaction when there is one (spec §4.4 rule 2):
 * a rollback sends nothing. A worker claims it (pending → processing with a lease), expands it
 * into dispatch rows and marks it done; the sweeper takes over rows whose wake-up job was lost.
 */
export const notificationOutbox = pgTable(
  'notification_outbox',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    eventKey: text('event_key').notNull(),
    input: jsonb('input').$type<OutboxInput>().notNull(),
    status: text('status').$type<'pending' | 'processing' | 'done'>().notNull().default('pending'),
    attempts: smallint('attempts').notNull().default(0),
    lockedUntil: timestamptz('locked_until'),
    createdAt: createdAt(),
    processedAt: timestamptz('processed_at'),
  },
  (t) => [index('notification_outbox_open').on(t.createdAt).where(sql`${t.status} <> 'done'`)],
);

export type Decision = 'pending' | 'sent' | 'suppressed' | 'deferred' | 'deduped' | 'failed';
export type ReasonCode =
  | 'preference_off'
  | 'globally_muted'
  | 'channel_unavailable'
  | 'unreachable'
  | 'rate_limited'
  | 'quiet_hours'
  | 'digest'
  | 'delivery_error';

/** The contact details a decision was made with (the trace shows where a message went). */
export type ContactSnapshot = { name: string; email: string | null; phone: string | null; address: string | null };

/**
 * One row per recipient × candidate channel of an outbox row (spec §2.3, §7.3); the unique index
 * makes a repeated expansion write nothing twice. `pending` is the short in-flight state between
 * "allowed" and the channel's answer (docs/decisions/0008-notification-dispatch.md).
 */
export const notificationDispatches = pgTable(
  'notification_dispatches',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    outboxId: integer('outbox_id').notNull(),
    eventKey: text('event_key').notNull(),
    channel: text('channel').$type<Channel>().notNull(),
    recipientType: text('recipient_type').$type<RecipientType>().notNull(),
    recipientId: integer('recipient_id'),
    /** `u:<id>`, `m:<id>`, `e:<channel>:<address>` */
    recipientKey: text('recipient_key').notNull(),
    contact: jsonb('contact').$type<ContactSnapshot>().notNull(),
    decision: text('decision').$type<Decision>().notNull(),
    reasonCode: text('reason_code').$type<ReasonCode>(),
    idempotencyKey: text('idempotency_key'),
    digestKey: text('digest_key'),
    /** deferred rows: when they are due (quiet-hours window end, digest time) */
    deliverAfter: timestamptz('deliver_after'),
    attempts: smallint('attempts').notNull().default(0),
    lockedUntil: timestamptz('locked_until'),
    error: text('error'),
    createdAt: createdAt(),
    /** when the channel accepted it (or, for digest rows, when it went into the digest email) */
    deliveredAt: timestamptz('delivered_at'),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('notification_dispatches_pair').on(t.outboxId, t.recipientKey, t.channel),
    index('notification_dispatches_tenant_time').on(t.tenantId, t.createdAt),
    index('notification_dispatches_open')
      .on(t.decision, t.deliverAfter)
      .where(sql`${t.decision} in ('pending', 'deferred')`),
    index('notification_dispatches_rate')
      .on(t.eventKey, t.recipientKey, t.channel, t.createdAt)
      .where(sql`${t.decision} in ('pending', 'sent')`),
    index('notification_dispatches_idempotency')
      .on(t.eventKey, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    index('notification_dispatches_digest').on(t.digestKey).where(sql`${t.digestKey} is not null`),
  ],
);

/**
 * Sparse overrides of the catalog per event × channel (spec §2.3): tenant_id 0 = platform
 * level; a tenant reads both with its own winning. `locked` stops users switching the channel off.
 */
export const notificationEventOverrides = pgTable(
  'notification_event_overrides',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    eventKey: text('event_key').notNull(),
    channel: text('channel').$type<Channel>().notNull(),
    enabled: boolean('enabled').notNull(),
    locked: boolean('locked').notNull().default(false),
    updatedBy: integer('updated_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('notification_event_overrides_key').on(t.tenantId, t.eventKey, t.channel)],
);

/** Sparse preferences: only switches that differ from the effective default are stored. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    recipientKey: text('recipient_key').notNull(),
    eventKey: text('event_key').notNull(),
    channel: text('channel').$type<Channel>().notNull(),
    enabled: boolean('enabled').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('notification_preferences_key').on(t.tenantId, t.recipientKey, t.eventKey, t.channel)],
);

export type DigestMode = 'realtime' | 'hourly' | 'daily';

/** Recipient settings (spec §2.3 notification_recipient_settings); absent row = defaults. */
export const notificationRecipientSettings = pgTable(
  'notification_recipient_settings',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    recipientKey: text('recipient_key').notNull(),
    globalMuted: boolean('global_muted').notNull().default(false),
    timezone: text('timezone').notNull().default('Asia/Shanghai'),
    /** HH:mm; both null = no quiet hours */
    quietStart: text('quiet_start'),
    quietEnd: text('quiet_end'),
    digestMode: text('digest_mode').$type<DigestMode>().notNull().default('realtime'),
    digestHour: smallint('digest_hour').notNull().default(9),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('notification_recipient_settings_key').on(t.tenantId, t.recipientKey)],
);

export type DispatchRow = typeof notificationDispatches.$inferSelect;
export type OutboxRow = typeof notificationOutbox.$inferSelect;
