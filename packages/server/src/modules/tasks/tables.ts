import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { tenantKey } from '../../platform/db/tenant-key.ts';

export type TaskStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const TASK_STATUSES: readonly TaskStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/**
 * The task center (issue 3 §4): long work of a user (an export, a zip download) with progress,
 * a result file (a managed file referenced as `{ type: 'task', id }`, dropped when it expires)
 * and cancellation. Status moves by conditional updates only (tasks-repository.ts).
 */
export const asyncTasks = pgTable(
  'async_tasks',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    ownerUserId: integer('owner_user_id').notNull(),
    /** a registered kind, e.g. `export.operation_logs` */
    kind: text('kind').notNull(),
    params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
    status: text('status').$type<TaskStatus>().notNull().default('queued'),
    progress: smallint('progress').notNull().default(0),
    resultFileId: integer('result_file_id'),
    resultExpiresAt: timestamp('result_expires_at', { withTimezone: true }),
    error: text('error'),
    cancelRequested: boolean('cancel_requested').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('async_tasks_owner').on(t.tenantId, t.ownerUserId, t.id),
    index('async_tasks_result_expiry').on(t.resultExpiresAt).where(sql`${t.resultFileId} is not null`),
    check('async_tasks_progress_range', sql`${t.progress} between 0 and 100`),
    check('async_tasks_status_known', sql`${t.status} in ('queued', 'running', 'succeeded', 'failed', 'cancelled')`),
  ],
);

export type TaskRow = typeof asyncTasks.$inferSelect;
