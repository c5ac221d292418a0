import { drizzle } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { CONNECTION_OPTIONS } from './connection-options.ts';
import { DatabaseUnavailableError } from './unavailable.ts';

/** The query builder every repository receives. A transaction is a `Db` too. */
export type Db = PgDatabase<PgQueryResultHKT>;

export type PoolStats = { total: number; idle: number; waiting: number };

/**
 * Whether the service can reach its PostgreSQL server, for health reports: `restarting` while the
 * embedded server is being started again after it died (embedded-supervisor.ts); otherwise what
 * the pool last saw (`down` from a failed connection or a lost one, `up` from the next connection).
 */
export type DatabaseState = {
  state: 'up' | 'down' | 'restarting';
  /** when it entered this state */
  since: Date;
  /** how many times the embedded server was started again after it died (0 for an external one) */
  restarts: number;
};

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
  state(): DatabaseState;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  url: string;
  kind: Database['kind'];
  poolMax?: number;
  /**
   * A connection failed (server restart, admin kill, the embedded server died): told once per
   * connection. The pool replaces it; a query that was using it fails with a 503.
   */
  onConnectionLost?: (err: Error) => void;
  /** the embedded server's supervisor, whose `restarting` state the pool cannot see */
  server?: { state(): DatabaseState };
};

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * A pool whose connection failures say they are the database's: a request that cannot get a
 * connection answers 503 `ops.database_unavailable` (http/error-handler.ts), whatever the cause
 * (refused, no socket, timed out, the pool closed, too many connections).
 */
class ServicePool extends pg.Pool {
  private readonly seen: (ok: boolean) => void;

  constructor(config: pg.PoolConfig, seen: (ok: boolean) => void) {
    super(config);
    this.seen = seen;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | undefined {
    if (!callback) {
      return super.connect().then(
        (client) => {
          this.seen(true);
          return client;
        },
        (err: Error) => {
          this.seen(false);
          throw new DatabaseUnavailableError(err);
        },
      );
    }
    // pool.query() takes a connection this way
    super.connect((err, client, done) => {
      this.seen(!err);
      callback(err && new DatabaseUnavailableError(err), client, done);
    });
    return undefined;
  }
}

/** A pool on a PostgreSQL server: the machine's, a managed one, or the embedded default (embedded-server.ts). */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  let reach: { state: 'up' | 'down'; since: Date } = { state: 'up', since: new Date() };
  const seen = (ok: boolean) => {
    if ((reach.state === 'up') !== ok) reach = { state: ok ? 'up' : 'down', since: new Date() };
  };
  const pool = new ServicePool({ connectionString: opts.url, max: opts.poolMax ?? 10, ...CONNECTION_OPTIONS }, seen);
  const lost = opts.onConnectionLost ?? (() => {});
  // Every connection gets an error listener for its whole life. The pool listens only while a
  // connection is idle: one checked out (a transaction waiting on something else, the advisory
  // lock) whose server went away would emit 'error' to nobody, and Node ends the process.
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      seen(false);
      lost(err);
    });
  });
  // The idle case again, as the pool reports it; required, or the pool's own emit would throw.
  pool.on('error', () => {});
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
    state: () => {
      const server = opts.server?.state();
      if (server && server.state !== 'up') return server;
      return { ...reach, restarts: server?.restarts ?? 0 };
    },
    close: () => pool.end(),
  };
}
