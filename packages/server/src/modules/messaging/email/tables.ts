import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';
import { singleConfigColumns, singleConfigIndexes } from '../../../platform/provider-configs/index.ts';

/**
 * SMTP configuration (spec §2.3 email_configs): one per tenant; the platform's (tenant_id 0)
 * serves every tenant without one of its own. `secure` = implicit TLS (port 465); otherwise the
 * connection upgrades with STARTTLS when the server offers it.
 */
export const emailConfigs = pgTable(
  'email_configs',
  {
    ...singleConfigColumns(),
    host: text('host').notNull(),
    port: integer('port').notNull(),
    secure: boolean('secure').notNull().default(false),
    /** empty = the server takes mail without authentication */
    username: text('username').notNull().default(''),
    /** encrypted with `email_configs.password:<id>` as context */
    passwordEncrypted: text('password_encrypted'),
    fromAddress: text('from_address').notNull(),
    fromName: text('from_name').notNull().default(''),
  },
  (t) => singleConfigIndexes('email_configs', t),
);

/** The SMTP password's encryption context (`email_configs.password:<id>`) and its flag in answers. */
export const EMAIL_SECRET = {
  table: 'email_configs',
  column: 'password',
  key: 'passwordEncrypted',
  flag: 'passwordSet',
} as const;

/**
 * Email templates: HTML with `{{var}}` placeholders, each declared in `variables`. Codes are unique
 * per tenant and among the platform's, whose templates serve tenants without their own.
 */
export const emailTemplates = pgTable(
  'email_templates',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    content: text('content').notNull(),
    variables: text('variables').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('email_templates_tenant_code').on(t.tenantId, t.code)],
);

/**
 * One row per attempted email: notification deliveries (dispatch_id = the notification_dispatches
 * row; no foreign key, either side may be purged on its own) and test sends (dispatch_id null).
 */
export const emailSendLogs = pgTable(
  'email_send_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    dispatchId: integer('dispatch_id'),
    eventKey: text('event_key'),
    templateCode: text('template_code'),
    /** the configuration that sent it (the platform's for a tenant that inherits it) */
    configId: integer('config_id'),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    status: text('status').$type<'sent' | 'failed'>().notNull(),
    error: text('error'),
    messageId: text('message_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('email_send_logs_tenant_time').on(t.tenantId, t.createdAt),
    index('email_send_logs_tenant_status_time').on(t.tenantId, t.status, t.createdAt),
  ],
);
