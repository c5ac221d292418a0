import { pgTable, serial, text } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../db/columns.ts';

/**
 * Tenants: the root of the tenant key. Every `tenant_id` of every table points here
 * (docs/decisions/0043-tenant-foreign-keys.md), so the table sits in the kernel, beside the key's
 * column types; the identity module manages its rows (create, update, disable, expire). Rows are
 * disabled, never deleted (docs/decisions/0002); row 0 is the platform tenant (0042).
 */
export const tenants = pgTable('tenants', {
  id: serial('id').primaryKey(),
  code: text('code').notNull().unique(),
  name: text('name').notNull(),
  status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
  expiresAt: timestamptz('expires_at'),
  remark: text('remark').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
