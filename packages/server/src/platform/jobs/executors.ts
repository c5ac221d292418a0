import type { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/** What pg-boss's `db` option needs: one method that runs SQL and answers `{ rows }`. */
export type SqlExecutor = { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

/**
 * pg-boss on embedded PGlite (docs/decisions/0006-jobs.md). Statements with parameters go
 * through `query` (extended protocol). Statements without parameters may be whole scripts —
 * migrations and `BEGIN; <advisory lock>; …; COMMIT;` blocks — which only `exec` (simple
 * protocol) runs; the rows of every statement are flattened as pg-boss expects. The script runs
 * inside PGlite's own transaction so a failure is rolled back under PGlite's lock: otherwise the
 * single connection would stay in an aborted transaction and every later query would fail.
 */
export function pgliteExecutor(client: PGlite): SqlExecutor {
  return {
    async executeSql(text, values) {
      if (values && values.length > 0) return client.query(text, values);
      const results = await client.transaction((tx) => tx.exec(text));
      return { rows: results.flatMap((r) => r.rows) };
    },
  };
}

/**
 * An executor that runs pg-boss's statements on the caller's Drizzle transaction, so a job is
 * inserted by the same connection, in the same transaction, as the business rows (the outbox).
 * `$n` placeholders become Drizzle parameters; `sql.param` keeps arrays as one value.
 */
export function drizzleExecutor(tx: Db): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      const chunks: SQL[] = [];
      let last = 0;
      for (const m of text.matchAll(/\$(\d+)/g)) {
        chunks.push(sql.raw(text.slice(last, m.index)));
        chunks.push(sql`${sql.param(values[Number(m[1]) - 1])}`);
        last = m.index + m[0].length;
      }
      chunks.push(sql.raw(text.slice(last)));
      const result = (await tx.execute(sql.join(chunks))) as unknown as { rows: unknown[] };
      return { rows: result.rows };
    },
  };
}
