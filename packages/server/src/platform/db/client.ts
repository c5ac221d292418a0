import { drizzle } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';

/** The query builder every repository receives. A transaction is a `Db` too. */
export type Db = PgDatabase<PgQueryResultHKT>;

export type PoolStats = { total: number; idle: number; waiting: number };

export type Database = {
  db: Db;
  /** the embedded default server (embedded-server.ts) or one the operator runs (DATABASE_URL) */
  kind: 'embedded' | 'external';
  /** the connection string: pg-boss and the LISTEN connection open their own connections with it */
  url: string;
  /** Raw SQL with no parameters, several statements allowed (migrations, test setup). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` while holding a cluster-wide advisory lock (migrations across instances). */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  url: string;
  kind: Database['kind'];
  poolMax?: number;
  /** an idle pooled connection failed (server restart, admin kill): the pool replaces it */
  onIdleError?: (err: Error) => void;
};

/** A pool on a PostgreSQL server: the machine's, a managed one, or the embedded default (embedded-server.ts). */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolMax ?? 10 });
  // Without a listener an idle connection's error would crash the process.
  pool.on('error', opts.onIdleError ?? (() => {}));
  // Fail at start, naming the problem, rather than at the first request.
  const probe = await pool.connect();
  probe.release();
  return {
    db: drizzle(pool) as unknown as Db,
    kind: opts.kind,
    url: opts.url,
    exec: async (sql) => {
      await pool.query(sql);
    },
    withAdvisoryLock: async (key, fn) => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [key]);
        try {
          return await fn();
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [key]);
        }
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}
