import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  check,
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
import { createdAt, timestamptz, updatedAt } from '../../platform/db/columns.ts';
import { tenantKey, tenantOnlyKey } from '../../platform/db/tenant-key.ts';
import { listedConfigColumns, listedConfigIndexes } from '../../platform/provider-configs/index.ts';
import type { ChannelCode, Scene } from './channels/types.ts';

/** docs/decisions/0021-payment-core.md: the statuses and the moves between them. */
export type OrderStatus = 'unsent' | 'paying' | 'succeeded' | 'closed' | 'failed' | 'unknown';
export type RefundStatus = 'processing' | 'succeeded' | 'failed' | 'unknown';
export type EventStatus = 'pending' | 'done' | 'failed';
export type PaymentEventType =
  | 'payment.succeeded'
  | 'payment.closed'
  | 'payment.failed'
  | 'refund.succeeded'
  | 'refund.failed';

/**
 * Channel configurations (issue 16 item 1) through the provider-configuration kit: several per
 * channel per tenant, `status` active|disabled is "enabled". Non-secret fields in `fields` (the
 * channel's field registry, configs/fields.ts, says which); the secrets as one JSON object
 * encrypted with `payment_channel_configs.secrets:<id>` as context.
 */
export const paymentChannelConfigs = pgTable(
  'payment_channel_configs',
  {
    ...listedConfigColumns(),
    channel: text('channel').$type<ChannelCode>().notNull(),
    fields: jsonb('fields').$type<Record<string, string>>().notNull().default({}),
    /** empty: built from PUBLIC_BASE_URL + /api/public/payment/notify/{channel} */
    notifyUrl: text('notify_url').notNull().default(''),
    secretsEncrypted: text('secrets_encrypted'),
  },
  (t) => [
    ...listedConfigIndexes('payment_channel_configs', t),
    index('payment_channel_configs_channel').on(t.channel, t.status),
  ],
);

export const CHANNEL_CONFIG_SECRET = {
  table: 'payment_channel_configs',
  column: 'secrets',
  key: 'secretsEncrypted',
  flag: 'hasSecrets',
} as const;

/** Payment orders: amounts in integer minor units; `refunded_amount` counts refunds reserved or done. */
export const paymentOrders = pgTable(
  'payment_orders',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantOnlyKey('tenant_id'),
    orderNo: text('order_no').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    channel: text('channel').$type<ChannelCode>().notNull(),
    configId: integer('config_id')
      .notNull()
      .references(() => paymentChannelConfigs.id, { onDelete: 'restrict' }),
    subject: text('subject').notNull(),
    status: text('status').$type<OrderStatus>().notNull(),
    channelTradeNo: text('channel_trade_no'),
    /** what the channel gave the payer's client when the payment was created */
    payPayload: jsonb('pay_payload').$type<Record<string, unknown>>(),
    paidAt: timestamptz('paid_at'),
    closedAt: timestamptz('closed_at'),
    expiresAt: timestamptz('expires_at').notNull(),
    refundedAmount: integer('refunded_amount').notNull().default(0),
    /** +1 on every status move */
    version: integer('version').notNull().default(1),
    /** the compensation jobs' claim: an instance querying the order at its channel holds it until then */
    queryLeaseUntil: timestamptz('query_lease_until'),
    /** why the creation call gave no pay details (unsent, unknown, failed); null once one succeeds */
    lastError: text('last_error'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique().on(t.tenantId, t.id),
    uniqueIndex('payment_orders_tenant_order_no').on(t.tenantId, t.orderNo),
    index('payment_orders_tenant_created').on(t.tenantId, t.createdAt),
    // the compensation jobs read open orders by age (unsent ones only to close them at expiry)
    index('payment_orders_open').on(t.createdAt).where(sql`${t.status} in ('paying', 'unknown', 'unsent')`),
    check('payment_orders_amount_positive', sql`${t.amount} > 0`),
    check('payment_orders_refunded_range', sql`${t.refundedAmount} >= 0 and ${t.refundedAmount} <= ${t.amount}`),
    check(
      'payment_orders_status',
      sql`${t.status} in ('unsent', 'paying', 'succeeded', 'closed', 'failed', 'unknown')`,
    ),
    check('payment_orders_refund_needs_payment', sql`${t.refundedAmount} = 0 or ${t.status} = 'succeeded'`),
  ],
);

export const paymentRefunds = pgTable(
  'payment_refunds',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantOnlyKey('tenant_id'),
    refundNo: text('refund_no').notNull(),
    orderId: integer('order_id')
      .notNull()
      .references(() => paymentOrders.id, { onDelete: 'restrict' }),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<RefundStatus>().notNull(),
    reason: text('reason').notNull().default(''),
    channelRefundNo: text('channel_refund_no'),
    refundedAt: timestamptz('refunded_at'),
    version: integer('version').notNull().default(1),
    /** the reconciliation job's claim (see payment_orders.query_lease_until) */
    queryLeaseUntil: timestamptz('query_lease_until'),
    /** why the refund call gave no definite answer, or never reached the channel; null when none */
    lastError: text('last_error'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payment_refunds_tenant_refund_no').on(t.tenantId, t.refundNo),
    index('payment_refunds_order').on(t.orderId),
    index('payment_refunds_tenant_created').on(t.tenantId, t.createdAt),
    // the reconciliation job reads processing / unknown refunds by age
    index('payment_refunds_open').on(t.createdAt).where(sql`${t.status} in ('processing', 'unknown')`),
    check('payment_refunds_amount_positive', sql`${t.amount} > 0`),
    check('payment_refunds_status', sql`${t.status} in ('processing', 'succeeded', 'failed', 'unknown')`),
  ],
);

/**
 * Channel callbacks as received (spec §2.4). `tenant_id` and `config_id` are null when no
 * configuration verified the message. Kept unpartitioned: the volume is one row per callback
 * (a few per order); a retention job deletes old rows (docs/decisions/0021).
 */
export const paymentNotifyLogs = pgTable(
  'payment_notify_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    configId: integer('config_id'),
    channel: text('channel').$type<ChannelCode>().notNull(),
    scene: text('scene').$type<Scene>(),
    orderNo: text('order_no'),
    rawBody: text('raw_body').notNull(),
    /** the request headers that matter to verification (signature values shortened) */
    headers: jsonb('headers').$type<Record<string, string>>().notNull(),
    signatureValid: boolean('signature_valid').notNull(),
    result: text('result').notNull(),
    message: text('message').notNull().default(''),
    ip: text('ip'),
    createdAt: createdAt(),
  },
  (t) => [
    index('payment_notify_logs_tenant_created').on(t.tenantId, t.createdAt),
    index('payment_notify_logs_order_no').on(t.orderNo),
  ],
);

/**
 * The outbox (spec §3.1): one row per final state an order or refund reaches, written in the
 * transaction of the status move. `lease_until` is the claim of the instance delivering it;
 * `attempts` fences the outcome (only the holder of the claimed attempt writes it).
 */
export const paymentEventRecords = pgTable(
  'payment_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: uuid('event_id').notNull(),
    tenantId: tenantOnlyKey('tenant_id'),
    type: text('type').$type<PaymentEventType>().notNull(),
    aggregateType: text('aggregate_type').$type<'order' | 'refund'>().notNull(),
    aggregateId: integer('aggregate_id').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<EventStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: timestamptz('lease_until'),
    lastError: text('last_error'),
    deliveredAt: timestamptz('delivered_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payment_events_event_id').on(t.eventId),
    // a final state is reached once: a second event for it is a bug, refused here
    uniqueIndex('payment_events_aggregate_type').on(t.aggregateType, t.aggregateId, t.type),
    index('payment_events_tenant_created').on(t.tenantId, t.createdAt),
    index('payment_events_pending').on(t.id).where(sql`${t.status} = 'pending'`),
    check('payment_events_status', sql`${t.status} in ('pending', 'done', 'failed')`),
    check('payment_events_attempts', sql`${t.attempts} >= 0`),
  ],
);
