import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../../../platform/db/client.ts';
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

/**
 * Records one report (spec §2.5, §3.4) in one statement, two when its identity is new to the
 * issue: each statement is atomic on its own, so no transaction (and none of its round trips) is
 * needed, and each keeps one counter exact — the first the group's event_count with the event,
 * the second identity_count with the identity row. The upsert on the fingerprint index makes
 * concurrent first reports of one fingerprint end as one group with an exact count: the losers of
 * the insert race wait on the winner's row and then take the update branch. A report on a
 * resolved issue reopens it and clears resolvedAt (regression).
 */
export async function recordOccurrence(
  db: Db,
  o: Occurrence,
): Promise<{ groupId: number; eventId: number; isNew: boolean }> {
  const at = o.at.toISOString();
  // The identity is only touched here when it is already recorded: a statement cannot both
  // upsert the group row and bump its identity_count (one row, modified once per statement).
  const [row] = await executePrepared(
    db,
    'monitor_record_report',
    sql`
      WITH g AS (
        INSERT INTO error_groups (tenant_id, fingerprint, environment, type, message, normalized_message,
          top_frame, source_file, level, event_count, first_release, last_release, first_seen_at, last_seen_at)
        VALUES (${o.tenantId}, ${o.fingerprint}, ${o.environment}, ${o.type}, ${o.message}, ${o.normalizedMessage},
          ${o.topFrame}, ${o.sourceFile}, ${o.level}, 1, ${o.release}, ${o.release}, ${at}::timestamptz, ${at}::timestamptz)
        ON CONFLICT ((coalesce(tenant_id, 0)), fingerprint) DO UPDATE SET
          event_count = error_groups.event_count + 1,
          last_seen_at = greatest(error_groups.last_seen_at, excluded.last_seen_at),
          last_release = case when excluded.last_release = '' then error_groups.last_release else excluded.last_release end,
          status = case when error_groups.status = 'resolved' then 'unresolved' else error_groups.status end,
          resolved_at = case when error_groups.status = 'resolved' then null else error_groups.resolved_at end,
          updated_at = excluded.last_seen_at
        RETURNING id, (xmax = 0) AS inserted
      ), e AS (
        INSERT INTO error_events (tenant_id, group_id, type, level, message, stack, source_url, page_url, release,
          environment, breadcrumbs, context, http, replay_id, user_agent, browser, os, identity, ip, created_at)
        SELECT ${o.tenantId}, g.id, ${o.type}, ${o.level}, ${o.message}, ${o.stack}, ${o.sourceUrl}, ${o.pageUrl},
          ${o.release}, ${o.environment}, ${JSON.stringify(o.breadcrumbs)}::jsonb, ${JSON.stringify(o.context)}::jsonb,
          ${o.http === null ? null : JSON.stringify(o.http)}::jsonb, ${o.replayId}, ${o.userAgent}, ${o.browser},
          ${o.os}, ${o.identity}, ${o.ip}, ${at}::timestamptz
        FROM g
        RETURNING id
      ), seen AS (
        UPDATE error_group_identities i SET last_seen_at = ${at}::timestamptz
        FROM g WHERE i.group_id = g.id AND i.identity = ${o.identity}
        RETURNING 1
      )
      SELECT g.id AS group_id, g.inserted, e.id AS event_id, EXISTS (SELECT 1 FROM seen) AS identity_seen FROM g, e`,
  );
  if (!row) throw new Error('error report statement returned no row');
  const groupId = Number(row.group_id);
  if (o.identity && row.identity_seen !== true) await addIdentity(db, groupId, o.identity, o.tenantId, at);
  return { groupId, eventId: Number(row.event_id), isNew: row.inserted === true };
}

/**
 * A new affected identity and the group's identity_count, together. The unique index decides
 * between concurrent reports of one identity (the losers take the update branch, `xmax <> 0`),
 * so the count rises once per identity.
 */
async function addIdentity(db: Db, groupId: number, identity: string, tenantId: number | null, at: string) {
  await executePrepared(
    db,
    'monitor_add_identity',
    sql`
    WITH i AS (
      INSERT INTO error_group_identities (group_id, identity, tenant_id, first_seen_at, last_seen_at)
      VALUES (${groupId}, ${identity}, ${tenantId}, ${at}::timestamptz, ${at}::timestamptz)
      ON CONFLICT (group_id, identity) DO UPDATE SET last_seen_at = excluded.last_seen_at
      RETURNING (xmax = 0) AS inserted
    )
    UPDATE error_groups SET identity_count = identity_count + 1
    WHERE id = ${groupId} AND (SELECT inserted FROM i)`,
  );
}
