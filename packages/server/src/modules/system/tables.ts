import { boolean, index, integer, pgTable, serial, text, unique } from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../platform/db/columns.ts';
import { tenantKey } from '../../platform/db/tenant-key.ts';

export const dictTypes = pgTable(
  'dict_types',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    code: text('code').notNull(),
    name: text('name').notNull(),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('dict_types_tenant_code').on(t.tenantId, t.code)],
);

export const dictItems = pgTable(
  'dict_items',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    typeId: integer('type_id')
      .notNull()
      .references(() => dictTypes.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    value: text('value').notNull(),
    sort: integer('sort').notNull().default(0),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('dict_items_type_value').on(t.typeId, t.value)],
);

export const systemConfigs = pgTable(
  'system_configs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    key: text('key').notNull(),
    value: text('value').notNull(),
    name: text('name').notNull(),
    builtin: boolean('builtin').notNull().default(false),
    remark: text('remark').notNull().default(''),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('system_configs_tenant_key').on(t.tenantId, t.key)],
);

export const notices = pgTable(
  'notices',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    title: text('title').notNull(),
    /** sanitized HTML */
    content: text('content').notNull(),
    type: text('type').$type<'notice' | 'announcement'>().notNull().default('notice'),
    status: text('status').$type<'draft' | 'published' | 'withdrawn'>().notNull().default('draft'),
    publishedAt: timestamptz('published_at'),
    createdBy: integer('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('notices_tenant_status').on(t.tenantId, t.status, t.publishedAt)],
);

export const operationLogs = pgTable(
  'operation_logs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    userId: integer('user_id'),
    username: text('username').notNull(),
    module: text('module').notNull(),
    operation: text('operation').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    statusCode: integer('status_code').notNull(),
    errorKey: text('error_key'),
    ip: text('ip').notNull(),
    userAgent: text('user_agent').notNull().default(''),
    durationMs: integer('duration_ms').notNull(),
    requestId: text('request_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('operation_logs_tenant_time').on(t.tenantId, t.createdAt),
    index('operation_logs_user').on(t.userId, t.createdAt),
  ],
);
