import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import type { ErrorLevel, ErrorType } from '../tables.ts';

export type Occurrence = {
  tenantId: number | null;
  fingerprint: string;
  environment: string;
  type: ErrorType;
  level: ErrorLevel;
  message: string;
  normalizedMessage: string;
  topFrame: string;
  sourceFile: string;
  release: string;
  stack: string;
  sourceUrl: string;
  pageUrl: string;
  breadcrumbs: unknown[];
  context: Record<string, unknown>;
  http: Record<string, unknown> | null;
  replayId: string | null;
  userAgent: string;
  browser: string;
  os: string;
  identity: string | null;
  ip: string;
  at: Date;
};

type Row = Record<string, unknown>;
const rowsOf = (r: unknown) => (r as { rows: Row[] }).rows;
const dialect = new PgDialect();

/**
 * Runs a statement as a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of once per report (planning cost as much as executing). The text must be
 * the same for every call under one name; only the parameters vary.
 */
async function executePrepared(db: Db, name: string, statement: SQL): Promise<Row[]> {
  const query = dialect.sqlToQuery(statement);
  return rowsOf(await db._.session.prepareQuery(query, undefined, name, false).execute());
}

export type Recorded = { groupId: number; eventId: number; isNew: boolean };
/** an identity not yet recorded for its issue when its report was */
export type NewIdentity = { groupId: number; identity: string; tenantId: number | null; at: Date };

/** Values as one array per column: the statements take the whole batch as unnest() parameters. */
const column = <T>(os: Occurrence[], pick: (o: Occurrence) => T) => sql.param(os.map(pick));
const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

/**
 * Records a batch of reports (spec §2.5, §3.4), in report order, in one atomic statement: the
 * groups with their event_count, the events, and the touch of identities already recorded. The
 * identities it found new go to `addIdentities`, a second statement that keeps identity_count
 * exact with the identity rows (one statement cannot upsert a group row and then bump it).
 *
 * Per issue in the batch, the group is upserted once with the batch's count, its latest time and
 * its last named release; its texts are those of its first report, as when reports come one by
 * one. The upsert on the fingerprint index makes concurrent first reports of one fingerprint end
 * as one group with an exact count: the losers of the insert race wait on the winner's row and
 * then take the update branch. Groups are upserted in key order, so two batches lock them in the
 * same order. A report on a resolved issue reopens it and clears resolvedAt (regression).
 */
export async function recordBatch(
  db: Db,
  os: Occurrence[],
): Promise<{ recorded: Recorded[]; newIdentities: NewIdentity[] }> {
  const rows = await executePrepared(
    db,
    'monitor_record_reports',
    sql`
      WITH r AS MATERIALIZED (
        SELECT r.*, nextval(pg_get_serial_sequence('error_events', 'id')) AS event_id
        FROM unnest(
          ${column(os, (o) => platformKey(o.tenantId))}::int[], ${column(os, (o) => o.fingerprint)}::text[],
          ${column(os, (o) => o.environment)}::text[], ${column(os, (o) => o.type)}::text[],
          ${column(os, (o) => o.level)}::text[], ${column(os, (o) => o.message)}::text[],
          ${column(os, (o) => o.normalizedMessage)}::text[], ${column(os, (o) => o.topFrame)}::text[],
          ${column(os, (o) => o.sourceFile)}::text[], ${column(os, (o) => o.release)}::text[],
          ${column(os, (o) => o.stack)}::text[], ${column(os, (o) => o.sourceUrl)}::text[],
          ${column(os, (o) => o.pageUrl)}::text[], ${column(os, (o) => json(o.breadcrumbs))}::jsonb[],
          ${column(os, (o) => json(o.context))}::jsonb[], ${column(os, (o) => json(o.http))}::jsonb[],
          ${column(os, (o) => o.replayId)}::text[], ${column(os, (o) => o.userAgent)}::text[],
          ${column(os, (o) => o.browser)}::text[], ${column(os, (o) => o.os)}::text[],
          ${column(os, (o) => o.identity)}::text[], ${column(os, (o) => o.ip)}::text[],
          ${column(os, (o) => o.at.toISOString())}::timestamptz[]
        ) WITH ORDINALITY AS r(tenant_id, fingerprint, environment, type, level, message, normalized_message,
          top_frame, source_file, release, stack, source_url, page_url, breadcrumbs, context, http, replay_id,
          user_agent, browser, os, identity, ip, at, n)
      ), k AS (
        SELECT tenant_id AS tk, fingerprint, min(n) AS first_n, count(*) AS events, max(at) AS last_at,
          coalesce((array_agg(release ORDER BY n DESC) FILTER (WHERE release <> ''))[1], '') AS last_release
        FROM r GROUP BY 1, 2
      ), g AS (
        INSERT INTO error_groups (tenant_id, fingerprint, environment, type, message, normalized_message,
          top_frame, source_file, level, event_count, first_release, last_release, first_seen_at, last_seen_at)
        SELECT f.tenant_id, f.fingerprint, f.environment, f.type, f.message, f.normalized_message,
          f.top_frame, f.source_file, f.level, k.events, f.release, k.last_release, f.at, k.last_at
        FROM k JOIN r f ON f.n = k.first_n
        ORDER BY k.tk, k.fingerprint
        ON CONFLICT (tenant_id, fingerprint) DO UPDATE SET
          event_count = error_groups.event_count + excluded.event_count,
          last_seen_at = greatest(error_groups.last_seen_at, excluded.last_seen_at),
          last_release = case when excluded.last_release = '' then error_groups.last_release else excluded.last_release end,
          status = case when error_groups.status = 'resolved' then 'unresolved' else error_groups.status end,
          resolved_at = case when error_groups.status = 'resolved' then null else error_groups.resolved_at end,
          updated_at = excluded.last_seen_at
        RETURNING id, tenant_id AS tk, fingerprint, (xmax = 0) AS inserted
      ), rg AS (
        SELECT r.*, g.id AS group_id, g.inserted AND r.n = k.first_n AS is_new
        FROM r JOIN g ON g.tk = r.tenant_id AND g.fingerprint = r.fingerprint
          JOIN k ON k.tk = g.tk AND k.fingerprint = g.fingerprint
      ), e AS (
        INSERT INTO error_events (id, tenant_id, group_id, type, level, message, stack, source_url, page_url, release,
          environment, breadcrumbs, context, http, replay_id, user_agent, browser, os, identity, ip, created_at)
        SELECT event_id, tenant_id, group_id, type, level, message, stack, source_url, page_url, release,
          environment, breadcrumbs, context, http, replay_id, user_agent, browser, os, identity, ip, at
        FROM rg
      ), seen AS (
        -- identities already recorded: touched here, once per issue, with their latest time, only
        -- once every group of the batch is locked (the aggregate reads all of rg first)
        UPDATE error_group_identities i SET last_seen_at = greatest(i.last_seen_at, p.at)
        FROM (SELECT group_id, identity, max(at) AS at FROM rg WHERE identity IS NOT NULL GROUP BY 1, 2) p
        WHERE i.group_id = p.group_id AND i.identity = p.identity
        RETURNING i.group_id, i.identity
      )
      SELECT rg.n, rg.group_id, rg.event_id, rg.is_new,
        rg.identity IS NOT NULL AND NOT EXISTS
          (SELECT 1 FROM seen s WHERE s.group_id = rg.group_id AND s.identity = rg.identity) AS identity_new
      FROM rg ORDER BY rg.n`,
  );
  if (rows.length !== os.length) throw new Error(`error report batch recorded ${rows.length} of ${os.length}`);
  const fresh = new Map<string, NewIdentity>();
  rows.forEach((row, i) => {
    const o = os[i] as Occurrence;
    if (row.identity_new !== true || o.identity === null) return;
    const groupId = Number(row.group_id);
    const key = JSON.stringify([groupId, o.identity]);
    const known = fresh.get(key);
    if (!known || known.at < o.at) fresh.set(key, { groupId, identity: o.identity, tenantId: o.tenantId, at: o.at });
  });
  return {
    recorded: rows.map((row) => ({
      groupId: Number(row.group_id),
      eventId: Number(row.event_id),
      isNew: row.is_new === true,
    })),
    newIdentities: [...fresh.values()],
  };
}

/**
 * Identities new to their issue and the issues' identity_count, together. The unique index decides
 * between concurrent reports of one identity (only the insert that wins comes back with
 * `xmax = 0`), so each count rises once per identity. The groups are locked first, in the order
 * `recordBatch` locks them, and identity rows are only written under their group's lock: two
 * batches, of one instance or of several, never wait on each other in a cycle.
 */
export async function addIdentities(db: Db, ids: NewIdentity[]): Promise<void> {
  await executePrepared(
    db,
    'monitor_add_identities',
    sql`
      WITH p AS (
        SELECT * FROM unnest(${sql.param(ids.map((x) => x.groupId))}::bigint[], ${sql.param(ids.map((x) => x.identity))}::text[],
          ${sql.param(ids.map((x) => platformKey(x.tenantId)))}::int[], ${sql.param(ids.map((x) => x.at.toISOString()))}::timestamptz[])
          AS p(group_id, identity, tenant_id, at)
      ), locked AS (
        SELECT g.id FROM error_groups g WHERE g.id IN (SELECT group_id FROM p)
        ORDER BY g.tenant_id, g.fingerprint FOR UPDATE
      ), i AS (
        INSERT INTO error_group_identities (group_id, identity, tenant_id, first_seen_at, last_seen_at)
        SELECT p.group_id, p.identity, p.tenant_id, p.at, p.at FROM p JOIN locked ON locked.id = p.group_id
        ORDER BY p.group_id, p.identity
        ON CONFLICT (group_id, identity) DO UPDATE
          SET last_seen_at = greatest(error_group_identities.last_seen_at, excluded.last_seen_at)
        RETURNING group_id, (xmax = 0) AS inserted
      )
      UPDATE error_groups SET identity_count = identity_count + c.n
      FROM (SELECT group_id, count(*) AS n FROM i WHERE inserted GROUP BY group_id) c
      WHERE error_groups.id = c.group_id`,
  );
}
