import type { Db } from '../../../platform/db/client.ts';
import { type ClientTokenRow, insertClientTokens } from './token-repository.ts';

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
 * The INSERT (`insertClientTokens`) also re-checks the application against its row as it is now:
 * active, the proved digest still its current secret (or the previous one within grace), the
 * grant and the scopes still allowed. A client authenticated from a stale cached record (a disable or rotation on
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
    insertClientTokens(
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
