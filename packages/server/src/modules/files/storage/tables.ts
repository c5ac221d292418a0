import { jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { listedConfigColumns, listedConfigIndexes } from '../../../platform/provider-configs/index.ts';

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
 * Admin-managed storage configurations: several per tenant (tenant_id 0 = platform), at most
 * one default each. Managed files record the id of the configuration that holds their bytes
 * (null = the built-in local disk), so reference it without cascade.
 */
export const storageConfigs = pgTable(
  'storage_configs',
  {
    ...listedConfigColumns(),
    kind: text('kind').$type<'local' | 's3'>().notNull(),
    settings: jsonb('settings').$type<LocalStorageSettings | S3StorageSettings>().notNull(),
    /** encrypted with `storage_configs.secret:<id>` as context */
    secretEncrypted: text('secret_encrypted'),
  },
  (t) => listedConfigIndexes('storage_configs', t),
);

/** The S3 secret's encryption context (`storage_configs.secret:<id>`) and its flag in answers. */
export const STORAGE_SECRET = {
  table: 'storage_configs',
  column: 'secret',
  key: 'secretEncrypted',
  flag: 'hasSecret',
} as const;
