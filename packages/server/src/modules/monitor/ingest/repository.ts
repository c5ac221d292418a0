import { sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import type { ErrorLevel, ErrorType } from '../tables.ts';
import { errorEvents } from '../tables.ts';

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

/**
 * Records one report in one transaction (spec §2.5, §3.4). The upsert on the fingerprint index
 * makes concurrent first reports of one fingerprint end as one group with an exact count: the
 * losers of the insert race wait on the winner's row and then take the update branch. The same
 * row lock orders the identity insert and the identity_count bump. A report on a resolved issue
 * reopens it and clears resolvedAt (regression).
 */
export async function recordOccurrence(
  db: Db,
  o: Occurrence,
): Promise<{ groupId: number; eventId: number; isNew: boolean }> {
  const at = o.at.toISOString();
  return db.transaction(async (tx) => {
    const [group] = rowsOf(
      await tx.execute(sql`
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
        RETURNING id, (xmax = 0) AS inserted`),
    );
    if (!group) throw new Error('error group upsert returned no row');
    const groupId = Number(group.id);

    const [event] = await tx
      .insert(errorEvents)
      .values({
        tenantId: o.tenantId,
        groupId,
        type: o.type,
        level: o.level,
        message: o.message,
        stack: o.stack,
        sourceUrl: o.sourceUrl,
        pageUrl: o.pageUrl,
        release: o.release,
        environment: o.environment,
        breadcrumbs: o.breadcrumbs,
        context: o.context,
        http: o.http,
        replayId: o.replayId,
        userAgent: o.userAgent,
        browser: o.browser,
        os: o.os,
        identity: o.identity,
        ip: o.ip,
        createdAt: o.at,
      })
      .returning({ id: errorEvents.id });
    if (!event) throw new Error('error event insert returned no row');

    if (o.identity) {
      const added = rowsOf(
        await tx.execute(sql`
          INSERT INTO error_group_identities (group_id, identity, tenant_id, first_seen_at, last_seen_at)
          VALUES (${groupId}, ${o.identity}, ${o.tenantId}, ${at}::timestamptz, ${at}::timestamptz)
          ON CONFLICT (group_id, identity) DO UPDATE SET last_seen_at = excluded.last_seen_at
          RETURNING (xmax = 0) AS inserted`),
      );
      if (added[0]?.inserted === true) {
        await tx.execute(sql`UPDATE error_groups SET identity_count = identity_count + 1 WHERE id = ${groupId}`);
      }
    }
    return { groupId, eventId: event.id, isNew: group.inserted === true };
  });
}
