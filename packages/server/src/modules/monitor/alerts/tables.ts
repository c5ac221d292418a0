import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';
import type { ErrorLevel, ErrorType } from '../tables.ts';

export type AlertCondition = 'new_error' | 'threshold' | 'spike';
export type AlertChannel = 'email' | 'webhook' | 'inapp';

/** Alert rules (spec §2.5): when a tenant's front-end errors notify whom, at most once per window. */
export const errorAlertRules = pgTable(
  'error_alert_rules',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(false),
    condition: text('condition').$type<AlertCondition>().notNull(),
    errorType: text('error_type').$type<ErrorType>(),
    level: text('level').$type<ErrorLevel>(),
    threshold: integer('threshold').notNull().default(1),
    windowMinutes: integer('window_minutes').notNull().default(60),
    channels: text('channels').array().$type<AlertChannel[]>().notNull().default(sql`'{}'::text[]`),
    /** user ids of the rule's tenant (email and inapp) */
    recipients: integer('recipients').array().notNull().default(sql`'{}'::integer[]`),
    webhookUrl: text('webhook_url'),
    /**
     * The webhook's signing secret (platform/egress/webhook-secrets.ts): created with the rule's
     * first webhook URL, encrypted and bound to the row; the previous one signs too while a
     * rotation's grace period runs. Null only for rules saved before webhooks were signed.
     */
    secretEncrypted: text('webhook_secret_encrypted'),
    secretHint: text('webhook_secret_hint'),
    previousSecretEncrypted: text('webhook_previous_secret_encrypted'),
    previousSecretExpiresAt: timestamptz('webhook_previous_secret_expires_at'),
    /** the debounce: set by one atomic conditional update when the rule fires (spec §4.6 rule 6) */
    lastTriggeredAt: timestamptz('last_triggered_at'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('error_alert_rules_tenant').on(t.tenantId)],
);

/** queued = handed to the notification center (its outbox id); delivered = the webhook answered 2xx */
export type AlertChannelOutcome = { status: 'queued' | 'delivered' | 'failed'; error?: string; outboxId?: number };

/** One row per firing (and per test send): what the rule was, what hit, where it went. */
export const errorAlertLogs = pgTable(
  'error_alert_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    ruleId: integer('rule_id').notNull(),
    ruleSnapshot: jsonb('rule_snapshot').$type<Record<string, unknown>>().notNull(),
    hits: jsonb('hits').$type<Record<string, unknown>>().notNull(),
    channels: jsonb('channels').$type<Partial<Record<AlertChannel, AlertChannelOutcome>>>().notNull(),
    test: boolean('test').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('error_alert_logs_tenant_created').on(t.tenantId, t.createdAt),
    index('error_alert_logs_rule').on(t.ruleId),
  ],
);
