import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';

export type SubscriptionStatus = 'active' | 'disabled';
/** `manual`: an operator disabled it; `failures`: the delivery failure rule did (docs/webhooks.md) */
export type DisabledReason = 'manual' | 'failures';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * Webhook subscriptions (spec §4.5 last paragraph, §5.7): a URL that receives the events it names,
 * signed with its own secret. `app_id` is null only for the payment center's own subscriptions;
 * open-platform routes always set it. The signing secret is stored encrypted (SecretBox, bound to
 * the row id); while a rotation's grace period runs, the previous secret signs too.
 */
export const openWebhookSubscriptions = pgTable(
  'open_webhook_subscriptions',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    appId: integer('app_id'),
    url: text('url').notNull(),
    /** event types, `prefix.*` patterns or `*` */
    events: text('events').array().notNull(),
    description: text('description').notNull().default(''),
    secretEncrypted: text('secret_encrypted').notNull(),
    secretHint: text('secret_hint').notNull(),
    previousSecretEncrypted: text('previous_secret_encrypted'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    status: text('status').$type<SubscriptionStatus>().notNull().default('active'),
    /** failed attempts since the last success */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** the first failed attempt since the last success */
    failingSince: timestamptz('failing_since'),
    disabledAt: timestamptz('disabled_at'),
    disabledReason: text('disabled_reason').$type<DisabledReason>(),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    // one subscription per URL and application, as GitHub refuses a second hook to the same URL
    uniqueIndex('open_webhook_subscriptions_app_url').on(t.tenantId, sql`coalesce(${t.appId}, 0)`, t.url),
    index('open_webhook_subscriptions_tenant_status').on(t.tenantId, t.status),
    index('open_webhook_subscriptions_app').on(t.appId),
  ],
);

/**
 * One event to one subscription. Retried with backoff until it succeeds or runs out of attempts.
 * `locked_until` is the lease of the instance sending it; `attempts` doubles as the fencing
 * token (an outcome is written only by the holder of the attempt it claimed).
 */
export const openWebhookDeliveries = pgTable(
  'open_webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    subscriptionId: integer('subscription_id')
      .notNull()
      .references(() => openWebhookSubscriptions.id, { onDelete: 'cascade' }),
    appId: integer('app_id'),
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** the JSON body sent: `{ id, type, createdAt, tenantId, data }` */
    payload: jsonb('payload').$type<WebhookPayload>().notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at'),
    lockedUntil: timestamptz('locked_until'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    lastDurationMs: integer('last_duration_ms'),
    deliveredAt: timestamptz('delivered_at'),
    /** the delivery an operator redelivered */
    redeliveryOf: bigint('redelivery_of', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    // the due-claim query: pending rows by next attempt time
    index('open_webhook_deliveries_due').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('open_webhook_deliveries_subscription').on(t.subscriptionId, t.id),
    index('open_webhook_deliveries_event').on(t.eventId),
    index('open_webhook_deliveries_finished').on(t.createdAt),
  ],
);

/** Each HTTP attempt of a delivery, for the delivery's history (what GitHub shows per delivery). */
export const openWebhookAttempts = pgTable(
  'open_webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    deliveryId: bigint('delivery_id', { mode: 'number' })
      .notNull()
      .references(() => openWebhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    url: text('url').notNull(),
    statusCode: integer('status_code'),
    /** `<egress code>: <message>` or `HTTP <status>`; null on success */
    error: text('error'),
    /** the first 2 KiB of the receiver's answer */
    responseBody: text('response_body'),
    durationMs: integer('duration_ms').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('open_webhook_attempts_delivery').on(t.deliveryId, t.attempt)],
);

/** The body of every delivery (docs/webhooks.md). */
export type WebhookPayload = {
  id: string;
  type: string;
  createdAt: string;
  tenantId: number | null;
  data: unknown;
};

export type SubscriptionRow = typeof openWebhookSubscriptions.$inferSelect;
export type DeliveryRow = typeof openWebhookDeliveries.$inferSelect;
export type AttemptRow = typeof openWebhookAttempts.$inferSelect;
