import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';

/** What pg-boss's `db` option needs: one method that runs SQL and answers `{ rows }`. */
export type SqlExecutor = { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };

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
