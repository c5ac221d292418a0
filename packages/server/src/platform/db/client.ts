import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';

/** The query builder every repository receives. A transaction is a `Db` too. */
export type Db = PgDatabase<PgQueryResultHKT>;

export type PoolStats = { total: number; idle: number; waiting: number };

export type Database = {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Raw SQL with no parameters, several statements allowed (migrations, test setup). */
  exec(sql: string): Promise<void>;
  /** Runs `fn` while holding a cluster-wide advisory lock (migrations across instances). */
  withAdvisoryLock<T>(key: number, fn: () => Promise<T>): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  url: string | null;
  dataDir: string | null;
  poolMax?: number;
  /** an idle pooled connection failed (server restart, admin kill): the pool replaces it */
  onIdleError?: (err: Error) => void;
};

/** PostgreSQL when a URL is given, otherwise embedded PGlite (in memory when dataDir is null). */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.poolMax ?? 10, opts.onIdleError ?? (() => {}));
  return openPglite(opts.dataDir);
}

async function openPostgres(url: string, max: number, onIdleError: (err: Error) => void): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max });
  // Without a listener an idle connection's error would crash the process.
  pool.on('error', onIdleError);
  // Fail at start, naming the problem, rather than at the first request.
  const probe = await pool.connect();
  probe.release();
  return {
    db: drizzlePg(pool) as unknown as Db,
    kind: 'postgres',
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

async function openPglite(dataDir: string | null): Promise<Database> {
  let client: PGlite;
  if (dataDir) {
    const dir = join(dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir);
  } else {
    client = new PGlite();
  }
  await client.waitReady;
  return {
    db: drizzlePglite(client) as unknown as Db,
    kind: 'pglite',
    exec: async (sql) => {
      await client.exec(sql);
    },
    // One process owns an embedded database: nothing else can race.
    withAdvisoryLock: (_key, fn) => fn(),
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    close: () => client.close(),
  };
}
