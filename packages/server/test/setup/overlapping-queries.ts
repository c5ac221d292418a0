import pg from 'pg';

/**
 * Catches a query sent on a pg client while an earlier query on that client has not answered yet
 * (`Promise.all` over a transaction, or over one `pool.connect()` client). pg 8 queues such a query
 * and, from the third one on, prints "Calling client.query() when the client is already executing
 * a query is deprecated"; pg 9 makes it an error. pg's warning is too weak for a test gate: it is
 * printed once per process, and not at all for two overlapping queries. So the guard counts the
 * unanswered queries of each client itself.
 */

type Query = (this: pg.Client, ...args: unknown[]) => unknown;

type ClientState = {
  /** the SQL of each query sent and not answered yet */
  unanswered: Set<{ sql: string }>;
  /**
   * Where the client was taken from the pool (a transaction's `db.transaction`). `Promise.all`
   * calls a drizzle query's `then` from a microtask, so the stack of the query sent too early
   * never reaches the code that sent it; `pool.connect()` is called synchronously from it.
   */
  checkedOut: Error | null;
};

const clients = new WeakMap<pg.Client, ClientState>();
/**
 * The overlaps found, kept on the wrapped prototype: the setup file and a test importing this
 * module may hold two instances of it, and both must read the list the one wrapper writes.
 */
const OVERLAPS = Symbol.for('atrium.overlappingQueries');
type Guarded = { query: Query; [OVERLAPS]?: string[] };
const guarded = pg.Client.prototype as unknown as Guarded;

/** pg's own notice: what the count below does not see (a cursor, a stream) still fails a test. */
const PG_NOTICE = 'Calling client.query() when the client is already executing a query';

function stateOf(client: pg.Client): ClientState {
  let state = clients.get(client);
  if (!state) {
    state = { unanswered: new Set(), checkedOut: null };
    clients.set(client, state);
  }
  return state;
}

function sqlOf(args: unknown[]): string {
  const first = args[0] as string | { text?: unknown } | null | undefined;
  const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
  return text.replace(/\s+/g, ' ').trim();
}

function deepStack(message: string): Error {
  const limit = Error.stackTraceLimit;
  // the first frames are pg's and drizzle's; the caller worth reading is further up
  Error.stackTraceLimit = 40;
  const error = new Error(message);
  Error.stackTraceLimit = limit;
  return error;
}

function report(state: ClientState, sql: string): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
  const busy = [...state.unanswered].map((q) => `  still executing: ${cut(q.sql)}`).join('\n');
  const sent = deepStack(`a query was sent while its client was still executing another\n  sent: ${cut(sql)}\n${busy}`);
  const checkedOut = state.checkedOut
    ? `\n  on the client taken from the pool at:\n${state.checkedOut.stack ?? ''}`
    : '';
  return `${sent.stack ?? sent.message}${checkedOut}`;
}

/** The callback pg will call back, wrapped so that the answer is counted; or none (a promise). */
function withCountedCallback(args: unknown[], answered: () => void): unknown[] | null {
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback === 'function') {
    const counted = (...result: unknown[]) => {
      answered();
      return callback(...result);
    };
    return [...args.slice(0, last), counted];
  }
  const config = args[0] as { callback?: unknown } | null;
  if (config && typeof config === 'object' && typeof config.callback === 'function') {
    const inner = config.callback as (...result: unknown[]) => unknown;
    const counted = (...result: unknown[]) => {
      answered();
      return inner(...result);
    };
    return [{ ...config, callback: counted }, ...args.slice(1)];
  }
  return null;
}

/** Wraps `pg.Client.prototype.query` once per process; later calls are no-ops. */
export function installOverlappingQueriesGuard(): void {
  if (guarded[OVERLAPS]) return;
  const overlaps: string[] = [];
  guarded[OVERLAPS] = overlaps;

  const original = guarded.query;
  guarded.query = function query(this: pg.Client, ...args: unknown[]) {
    // A cursor or a stream (`submit`) answers over several round trips: pg's notice covers it.
    const submittable = typeof (args[0] as { submit?: unknown } | null)?.submit === 'function';
    if (submittable) return original.apply(this, args);

    const state = stateOf(this);
    const sql = sqlOf(args);
    if (state.unanswered.size > 0) overlaps.push(report(state, sql));

    const entry = { sql };
    state.unanswered.add(entry);
    const answered = () => state.unanswered.delete(entry);
    const withCallback = withCountedCallback(args, answered);
    let result: unknown;
    try {
      result = original.apply(this, withCallback ?? args);
    } catch (err) {
      answered();
      throw err;
    }
    if (!withCallback && result instanceof Promise) result.then(answered, answered);
    return result;
  };

  const pool = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  const connect = pool.connect;
  pool.connect = function connectNoted(this: pg.Pool, ...args: unknown[]) {
    // the callback form is pool.query's own, one query per checkout: nothing to note
    if (args.length > 0) return connect.apply(this, args);
    const at = deepStack('pool.connect()');
    return (connect.apply(this, args) as Promise<pg.PoolClient>).then((client) => {
      stateOf(client).checkedOut = at;
      return client;
    });
  };

  process.on('warning', (warning) => {
    // pg notices once per process, a tick after the query; when the count has caught overlaps
    // not yet taken, the notice is about one of them and the test fails already
    if (warning.name === 'DeprecationWarning' && warning.message.startsWith(PG_NOTICE) && overlaps.length === 0) {
      overlaps.push(warning.stack ?? warning.message);
    }
  });
}

/** The overlaps seen since the last call, each with the stack of the query sent too early. */
export function takeOverlappingQueries(): string[] {
  return guarded[OVERLAPS]?.splice(0) ?? [];
}
