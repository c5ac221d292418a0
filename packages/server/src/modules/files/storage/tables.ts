import { sql } from 'drizzle-orm';
import { boolean, integer, jsonb, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../../platform/db/columns.ts';

/** Non-secret settings of a storage configuration; the secret lives in `secret_encrypted`. */
/** Local configurations keep their objects under DATA_DIR/storage/config-<id>; nothing to set. */
export type LocalStorageSettings = Record<string, never>;
export type S3StorageSettings = {
  /** empty = the AWS endpoint of `region` */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  forcePathStyle: boolean;
  prefix: string;
};

/**
 * Admin-managed storage configurations: several per tenant (tenant_id null = platform), at most
 * one default each. Managed files record the id of the configuration that holds their bytes
 * (null = the built-in local disk), so reference it without cascade.
 */
export const storageConfigs = pgTable(
  'storage_configs',
  {
    id: serial('id').primaryKey(),
    tenantId: integer('tenant_id'),
    name: text('name').notNull(),
    kind: text('kind').$type<'local' | 's3'>().notNull(),
    settings: jsonb('settings').$type<LocalStorageSettings | S3StorageSettings>().notNull(),
    /** ctx.secrets.encrypt(secretAccessKey, `storage_configs.secret:<id>`) */
    secretEncrypted: text('secret_encrypted'),
    isDefault: boolean('is_default').notNull().default(false),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('storage_configs_tenant_name').on(sql`coalesce(${t.tenantId}, 0)`, t.name),
    uniqueIndex('storage_configs_one_default').on(sql`coalesce(${t.tenantId}, 0)`).where(sql`${t.isDefault}`),
  ],
);
