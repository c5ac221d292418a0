import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantKey } from '../../platform/db/tenant-key.ts';

/**
 * Cron jobs of the admin (release 0.1.0): a registered handler (system task) bound to a cron
 * expression. Platform scope only for now: `tenant_id` is always null (docs/decisions/0006-jobs.md).
 */
export const cronJobs = pgTable(
  'cron_jobs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    name: text('name').notNull(),
    /** name of a registered system task */
    handler: text('handler').notNull(),
    cron: text('cron').notNull(),
    /** IANA zone the expression is read in */
    timezone: text('timezone').notNull().default('UTC'),
    params: jsonb('params').$type<Record<string, unknown>>().notNull().default({}),
    enabled: boolean('enabled').notNull().default(true),
    /** seeded from a system task's default schedule: keeps its name and handler, cannot be deleted */
    builtin: boolean('builtin').notNull().default(false),
    remark: text('remark').notNull().default(''),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    lastStatus: text('last_status').$type<'running' | 'success' | 'failed'>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [unique().on(t.tenantId, t.id), unique('cron_jobs_tenant_name').on(t.tenantId, t.name)],
);

export const cronJobRuns = pgTable(
  'cron_job_runs',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    jobId: integer('job_id')
      .notNull()
      .references(() => cronJobs.id, { onDelete: 'cascade' }),
    handler: text('handler').notNull(),
    trigger: text('trigger').$type<'scheduled' | 'manual'>().notNull(),
    status: text('status').$type<'running' | 'success' | 'failed'>().notNull().default('running'),
    /** the cron tick a scheduled run serves */
    scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    durationMs: integer('duration_ms'),
    result: jsonb('result'),
    error: text('error'),
    /** user who pressed "run now" */
    triggeredBy: integer('triggered_by'),
  },
  (t) => [
    index('cron_job_runs_job_started').on(t.jobId, t.startedAt),
    // One run per job and tick, whatever the number of instances.
    uniqueIndex('cron_job_runs_job_tick').on(t.jobId, t.scheduledAt).where(sql`${t.trigger} = 'scheduled'`),
  ],
);
