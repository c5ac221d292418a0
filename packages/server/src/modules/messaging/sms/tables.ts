import { sql } from 'drizzle-orm';
import { bigserial, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';
import { listedConfigColumns, listedConfigIndexes } from '../../../platform/provider-configs/index.ts';

export type SmsProviderName = 'aliyun' | 'tencent';

/**
 * SMS provider configurations (spec §2.3): several per tenant (tenant_id 0 = the platform's,
 * which serve tenants without an active default of their own), at most one default each.
 */
export const smsConfigs = pgTable(
  'sms_configs',
  {
    ...listedConfigColumns(),
    provider: text('provider').$type<SmsProviderName>().notNull(),
    accessKeyId: text('access_key_id').notNull(),
    /** encrypted with `sms_configs.access_key_secret:<id>` as context */
    accessKeySecretEncrypted: text('access_key_secret_encrypted'),
    signName: text('sign_name').notNull(),
    /** Tencent's SmsSdkAppId; null for Aliyun */
    sdkAppId: text('sdk_app_id'),
    region: text('region').notNull(),
    /** the provider's official endpoint unless a private deployment (or a test) sets another */
    endpoint: text('endpoint').notNull(),
  },
  (t) => listedConfigIndexes('sms_configs', t),
);

/** The access key secret's encryption context (`sms_configs.access_key_secret:<id>`) and its flag in answers. */
export const SMS_SECRET = {
  table: 'sms_configs',
  column: 'access_key_secret',
  key: 'accessKeySecretEncrypted',
  flag: 'accessKeySecretSet',
} as const;

/**
 * SMS templates: the provider-side template (registered with the provider) plus a local preview
 * text. `variables` names the template's parameters in order: Tencent's TemplateParamSet is
 * positional, Aliyun's TemplateParam is keyed by these names. Codes are unique per tenant; the
 * platform's serve tenants without their own. A null config_id = the default configuration.
 */
export const smsTemplates = pgTable(
  'sms_templates',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    name: text('name').notNull(),
    configId: integer('config_id').references(() => smsConfigs.id, { onDelete: 'restrict' }),
    providerTemplateId: text('provider_template_id').notNull(),
    content: text('content').notNull().default(''),
    variables: text('variables').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('sms_templates_tenant_code').on(t.tenantId, t.code)],
);

/**
 * One row per attempted SMS: notification deliveries (dispatch_id set, no foreign key: either side
 * may be purged on its own) and test sends (dispatch_id and event_key null). config_id and
 * provider are null when no configuration could be found for the attempt.
 */
export const smsSendLogs = pgTable(
  'sms_send_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    dispatchId: integer('dispatch_id'),
    eventKey: text('event_key'),
    templateCode: text('template_code'),
    configId: integer('config_id'),
    provider: text('provider').$type<SmsProviderName>(),
    phone: text('phone').notNull(),
    status: text('status').$type<'sent' | 'failed'>().notNull(),
    /** Aliyun BizId, Tencent SerialNo */
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [index('sms_send_logs_tenant_created').on(t.tenantId, t.createdAt)],
);
