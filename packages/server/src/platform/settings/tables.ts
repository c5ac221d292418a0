import { integer, jsonb, pgTable, serial, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { tenantKey } from '../db/tenant-key.ts';

/** Stored setting values: one row per module and scope; tenant_id 0 = platform value. */
export const settingsValues = pgTable(
  'settings_values',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    module: text('module').notNull(),
    values: jsonb('values').$type<Record<string, unknown>>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: integer('updated_by'),
  },
  (t) => [unique('settings_values_module_tenant').on(t.module, t.tenantId)],
);
