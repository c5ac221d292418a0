import { index, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantKey } from '../../platform/db/tenant-key.ts';

/** A member (customer-side identity). Minimal for now: a principal for notifications and monitoring. */
export const members = pgTable(
  'members',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    nickname: text('nickname').notNull(),
    email: text('email'),
    phone: text('phone'),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('members_tenant').on(t.tenantId)],
);
