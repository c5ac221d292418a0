import { sql } from 'drizzle-orm';
import { boolean, type PgColumn, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns.ts';
import { tenantKey } from '../db/tenant-key.ts';

/**
 * Columns and indexes every provider configuration table has; a module spreads them into its own
 * table beside its provider-specific columns. `tenant_id` 0 (read as null) = the platform's row.
 */
/** Several configurations per scope, named, exactly one of them the default (storage, SMS, payment channels). */
export const listedConfigColumns = () => ({
  id: serial('id').primaryKey(),
  tenantId: tenantKey('tenant_id'),
  name: text('name').notNull(),
  isDefault: boolean('is_default').notNull().default(false),
  status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
  remark: text('remark').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Names unique per scope; at most one default per scope (the partial unique index keeps set-default race-safe). */
export const listedConfigIndexes = (table: string, t: { tenantId: PgColumn; name: PgColumn; isDefault: PgColumn }) => [
  uniqueIndex(`${table}_tenant_name`).on(t.tenantId, t.name),
  uniqueIndex(`${table}_one_default`).on(t.tenantId).where(sql`${t.isDefault}`),
];

/** One configuration per scope (email, push). */
export const singleConfigColumns = () => ({
  id: serial('id').primaryKey(),
  tenantId: tenantKey('tenant_id'),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const singleConfigIndexes = (table: string, t: { tenantId: PgColumn }) => [
  uniqueIndex(`${table}_tenant`).on(t.tenantId),
];
