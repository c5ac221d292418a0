import { sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { acceptsProof } from '../apps/clients.ts';
import { openApps } from '../apps/tables.ts';

/** One client_credentials access token to write, with what its client authentication relied on. */
export type ClientTokenRow = {
  tokenHash: string;
  appId: number;
  /** SHA-256 of the secret the client presented, already matched against the cached record */
  proof: string;
  scopes: string[];
  expiresAt: Date;
  now: Date;
};

/** bounds one statement's JSON parameter (about 250 bytes a row) */
const MAX_ROWS = 500;

type Waiting = { row: ClientTokenRow; done: (written: boolean) => void; fail: (err: unknown) => void };

/**
 * Group commit for client_credentials access tokens, the token endpoint's hot path. One INSERT is
 * in flight at a time; the requests arriving meanwhile go together in the next one (one round
 * trip, one WAL flush for all of them), so batches grow with the load and a quiet server writes
 * each row at once. A request is answered only after the statement holding its row committed:
 * every token is durable before it is handed out. (Bench: more statements in flight cost
 * PostgreSQL more CPU per token than they save in waiting.)
 *
 * The INSERT also re-checks the application against its row as it is now: active, the proved
 * digest still its current secret (or the previous one within grace), the grant and the scopes
 * still allowed. A client authenticated from a stale cached record (a disable or rotation on
 * another instance whose pub/sub message has not arrived) gets no row: `write` answers false and
 * the caller reads the record again. So a rotated secret or a disabled application mints nothing,
 * at once, on every instance, without a statement of its own.
 */
export function clientTokenWriter(db: Db) {
  let waiting: Waiting[] = [];
  let writing = false;

  const flush = () => {
    if (writing || !waiting.length) return;
    const batch = waiting.slice(0, MAX_ROWS);
    waiting = waiting.slice(batch.length);
    writing = true;
    insertRows(
      db,
      batch.map((w) => w.row),
    )
      .then(
        (written) => {
          for (const w of batch) w.done(written.has(w.row.tokenHash));
        },
        (err) => {
          for (const w of batch) w.fail(err);
        },
      )
      .finally(() => {
        writing = false;
        flush();
      });
  };

  return {
    /** true once the row is committed; false when the application no longer accepts the proof */
    write(row: ClientTokenRow): Promise<boolean> {
      return new Promise((done, fail) => {
        waiting.push({ row, done, fail });
        flush();
      });
    },
  };
}

export type ClientTokenWriter = ReturnType<typeof clientTokenWriter>;

type Rows<T> = { rows: T[] };

/** The rows as one JSON parameter expanded by the database (as notification dispatches are written). */
async function insertRows(db: Db, rows: ClientTokenRow[]): Promise<Set<string>> {
  const json = JSON.stringify(
    rows.map((r) => ({
      token_hash: r.tokenHash,
      app_id: r.appId,
      proof: r.proof,
      scopes: r.scopes,
      expires_at: r.expiresAt.toISOString(),
      now: r.now.toISOString(),
    })),
  );
  const result = (await db.execute(sql`
    insert into oauth_tokens (token_hash, kind, tenant_id, app_id, scopes, expires_at)
    select t.token_hash, 'access', ${openApps.tenantId}, ${openApps.id}, t.scopes, t.expires_at
    from jsonb_to_recordset(${json}::jsonb)
      as t(token_hash text, app_id int, proof text, scopes text[], expires_at timestamptz, now timestamptz)
    join ${openApps} on ${openApps.id} = t.app_id and ${acceptsProof(openApps, sql`t.proof`, sql`t.now`)}
      and ${openApps.clientType} = 'confidential' and 'client_credentials' = any(${openApps.grantTypes})
      and t.scopes <@ ${openApps.allowedScopes}
    returning token_hash`)) as unknown as Rows<{ token_hash: string }>;
  return new Set(result.rows.map((r) => r.token_hash));
}
