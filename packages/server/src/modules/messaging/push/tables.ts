import { bigserial, boolean, index, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../../platform/db/columns.ts';
import { tenantKey } from '../../../platform/db/tenant-key.ts';
import { singleConfigColumns, singleConfigIndexes } from '../../../platform/provider-configs/index.ts';

export type PushPlatform = 'ios' | 'android' | 'harmony' | 'web';

/**
 * Devices bound to users for push (spec §4.4 rule 6). `registration_id` is the push provider's id
 * of the app installation: unique per tenant, so binding an id already bound moves it to the new
 * user. A device the provider no longer knows is marked inactive and not pushed to.
 */
export const pushDevices = pgTable(
  'push_devices',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id').notNull(),
    platform: text('platform').$type<PushPlatform>().notNull(),
    registrationId: text('registration_id').notNull(),
    deviceName: text('device_name').notNull().default(''),
    appVersion: text('app_version').notNull().default(''),
    status: text('status').$type<'active' | 'inactive'>().notNull().default('active'),
    lastSeenAt: timestamptz('last_seen_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('push_devices_tenant_registration').on(t.tenantId, t.registrationId),
    index('push_devices_user').on(t.tenantId, t.userId),
  ],
);

/**
 * The aggregation push provider's credentials (JPush-style REST API): one row per tenant; the
 * platform's (tenant_id 0) serves every tenant without one of its own.
 */
export const pushConfigs = pgTable(
  'push_configs',
  {
    ...singleConfigColumns(),
    endpoint: text('endpoint').notNull(),
    appKey: text('app_key').notNull(),
    /** encrypted with `push_configs.master_secret:<id>` as context */
    masterSecretEncrypted: text('master_secret_encrypted'),
    /** APNs environment of iOS notifications: production or development */
    apnsProduction: boolean('apns_production').notNull().default(false),
  },
  (t) => singleConfigIndexes('push_configs', t),
);

/** The master secret's encryption context (`push_configs.master_secret:<id>`) and its flag in answers. */
export const PUSH_SECRET = {
  table: 'push_configs',
  column: 'master_secret',
  key: 'masterSecretEncrypted',
  flag: 'masterSecretSet',
} as const;

/** One row per provider call (one per recipient user); dispatch_id without a foreign key, like the other logs. */
export const pushSendLogs = pgTable(
  'push_send_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    dispatchId: integer('dispatch_id'),
    eventKey: text('event_key').notNull(),
    userId: integer('user_id').notNull(),
    registrationIds: text('registration_ids').array().notNull(),
    status: text('status').$type<'sent' | 'failed'>().notNull(),
    /** the provider's msg_id */
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (t) => [index('push_send_logs_tenant_created').on(t.tenantId, t.createdAt)],
);
