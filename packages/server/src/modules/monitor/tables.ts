import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, timestamptz, updatedAt } from '../../platform/db/columns.ts';
import { tenantKey } from '../../platform/db/tenant-key.ts';

/** The report types of spec §2.5, in the order the console lists them. */
export const ERROR_TYPES = [
  'js_error',
  'promise_rejection',
  'resource_error',
  'console_error',
  'http_error',
  'white_screen',
  'crash',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];
export type ErrorLevel = 'fatal' | 'error' | 'warning' | 'info';
export type IssueStatus = 'unresolved' | 'resolved' | 'ignored' | 'muted';

/**
 * Sites that report front-end errors anonymously (spec §4.6 rule 1): the public
 * `X-Analytics-Site-Key` names the tenant, and reports are accepted only from the allowed origins.
 * One site may be the platform's (tenant null): the web console's own, made by the service at
 * start (sites/console-site.ts, docs/decisions/0037); the API makes sites in tenants only.
 */
export const errorSites = pgTable(
  'error_sites',
  {
    id: serial('id').primaryKey(),
    tenantId: tenantKey('tenant_id'),
    name: text('name').notNull(),
    siteKey: text('site_key').notNull(),
    /** exact origins (`https://shop.example.com`); empty = no anonymous reports accepted */
    allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<'active' | 'disabled'>().notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('error_sites_key').on(t.siteKey),
    uniqueIndex('error_sites_tenant_name').on(t.tenantId, t.name),
    // at most one platform site: the console's, which the seed finds and re-creates by this
    uniqueIndex('error_sites_platform').on(t.tenantId).where(sql`${t.tenantId} = 0`),
  ],
);

/**
 * Issues (spec §2.5): one per fingerprint and tenant (tenant_id 0 = reports no tenant could be
 * attributed to, seen at platform scope). `event_count` and `identity_count` are kept exact by the
 * upsert that records each report.
 */
export const errorGroups = pgTable(
  'error_groups',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    fingerprint: text('fingerprint').notNull(),
    environment: text('environment').notNull(),
    type: text('type').$type<ErrorType>().notNull(),
    /** the first report's message as sent (truncated to the limit) */
    message: text('message').notNull(),
    normalizedMessage: text('normalized_message').notNull(),
    /** `function (file:line:col)` of the top stack frame, as reported (minified) */
    topFrame: text('top_frame').notNull().default(''),
    sourceFile: text('source_file').notNull().default(''),
    level: text('level').$type<ErrorLevel>().notNull().default('error'),
    status: text('status').$type<IssueStatus>().notNull().default('unresolved'),
    assigneeId: integer('assignee_id'),
    note: text('note').notNull().default(''),
    eventCount: bigint('event_count', { mode: 'number' }).notNull().default(0),
    identityCount: integer('identity_count').notNull().default(0),
    firstRelease: text('first_release').notNull().default(''),
    lastRelease: text('last_release').notNull().default(''),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
    resolvedAt: timestamptz('resolved_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('error_groups_fingerprint').on(t.tenantId, t.fingerprint),
    index('error_groups_tenant_last_seen').on(t.tenantId, t.lastSeenAt),
  ],
);

/** Each report (an occurrence of an issue). */
export const errorEvents = pgTable(
  'error_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: tenantKey('tenant_id'),
    groupId: bigint('group_id', { mode: 'number' }).notNull(),
    type: text('type').$type<ErrorType>().notNull(),
    level: text('level').$type<ErrorLevel>().notNull(),
    message: text('message').notNull(),
    stack: text('stack').notNull().default(''),
    sourceUrl: text('source_url').notNull().default(''),
    pageUrl: text('page_url').notNull().default(''),
    release: text('release').notNull().default(''),
    environment: text('environment').notNull(),
    breadcrumbs: jsonb('breadcrumbs').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
    context: jsonb('context').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /** { method, url, status } of an http_error */
    http: jsonb('http').$type<Record<string, unknown> | null>(),
    replayId: text('replay_id'),
    userAgent: text('user_agent').notNull().default(''),
    browser: text('browser').notNull().default(''),
    os: text('os').notNull().default(''),
    /** `u:{userId}`, `m:{memberId}` or `a:{sessionId}`; null when nothing identifies the reporter */
    identity: text('identity'),
    ip: text('ip').notNull().default(''),
    createdAt: createdAt(),
  },
  (t) => [
    index('error_events_group_created').on(t.groupId, t.createdAt),
    index('error_events_tenant_created').on(t.tenantId, t.createdAt),
  ],
);

/** Distinct affected identities per issue (spec §8: one per user, member or session). */
export const errorGroupIdentities = pgTable(
  'error_group_identities',
  {
    groupId: bigint('group_id', { mode: 'number' }).notNull(),
    identity: text('identity').notNull(),
    tenantId: tenantKey('tenant_id'),
    firstSeenAt: timestamptz('first_seen_at').notNull(),
    lastSeenAt: timestamptz('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.identity] })],
);
