import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { Type } from 'typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { route } from '../../src/platform/http/route.ts';
import { ADMIN_PASSWORD, call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { type PgProxy, startPgProxy } from './pg-proxy.ts';

/**
 * PostgreSQL lost under a running service, each way a connection fails — refused, a server that
 * accepts and never answers, a query terminated by an administrator, a transaction cut in the
 * middle, idle connections dropped — answers 503 `ops.database_unavailable` with Retry-After, in
 * bounded time, never a 500 and never a hang; a cut transaction writes nothing; no lost connection
 * ends the process (an 'error' event nobody listens to would); and the next request after the
 * fault is served on new connections.
 */

/** A request to a database that is down answers within this (the pool's connection timeout is 3 s). */
const BOUND_MS = 5_000;

let store: TestStore;
let proxy: PgProxy;
let t: TestApp;
let server: pg.Client;
let gate: { open(): void; wait: Promise<void> } | null = null;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

function faultRoutes(app: FastifyInstance) {
  const tags = ['Docs'];
  const Ok = Type.Object({ ok: Type.Boolean() });
  route(app, {
    method: 'GET',
    url: '/api/test/faults/sleep',
    operation: 'test.faults.sleep',
    auth: 'public',
    schema: { tags, summary: 'test: a query that runs until it is stopped', response: Ok },
    handler: async () => {
      await app.ctx.db.execute(sql`select pg_sleep(60)`);
      return { ok: true };
    },
  });
  route(app, {
    method: 'POST',
    url: '/api/test/faults/two-writes',
    operation: 'test.faults.two_writes',
    auth: 'public',
    schema: { tags, summary: 'test: two inserts in one transaction, waiting between them', response: Ok },
    handler: async () => {
      await app.ctx.db.transaction(async (tx) => {
        await tx.execute(sql`insert into faults_probe values (1)`);
        await gate?.wait; // the connection is checked out and idle in the transaction meanwhile
        await tx.execute(sql`insert into faults_probe values (2)`);
      });
      return { ok: true };
    },
  });
}

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  store = await createTestStore();
  proxy = await startPgProxy(store.url);
  t = await createTestApp({
    store: { ...store, url: proxy.url },
    extraRoutes: faultRoutes,
    // the job runner's complaints while the database is away are expected here
    logDestination: new Writable({ write: (_c, _e, done) => done() }),
  });
  await t.database.exec('create table faults_probe (n int)');
  server = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await server.connect();
}, 60_000);

afterEach(async () => {
  gate?.open();
  gate = null;
  await proxy.set('pass');
  expect(uncaught, 'an error nobody handled reached the process').toEqual([]);
});

afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await server?.end();
  await t?.close();
  await proxy?.close();
  await store?.drop();
});

async function timed(request: () => Promise<LightMyRequestResponse>) {
  const started = Date.now();
  const res = await request();
  return { res, ms: Date.now() - started };
}

function expectDatabaseUnavailable({ res, ms }: { res: LightMyRequestResponse; ms: number }) {
  expect(res.statusCode, res.body).toBe(503);
  expect(res.json()).toMatchObject({ code: 503, error: 'ops.database_unavailable' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(ms).toBeLessThan(BOUND_MS);
}

const listUsers = () => call(t.app, 'GET', '/api/users', { token: t.demoAdminToken });
const signIn = () =>
  call(t.app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: ADMIN_PASSWORD, tenantCode: 'demo' },
  });

/** The server's view of this test's connections (the service's own go through the relay). */
async function backends(where: string): Promise<{ pid: number; state: string }[]> {
  const rows = await server.query(
    `select pid, state from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and ${where}`,
    [store.dbName],
  );
  return rows.rows;
}

async function until<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('PostgreSQL unreachable or lost', { timeout: 30_000 }, () => {
  it('refused: sign-in and a list answer 503 ops.database_unavailable; served again once it is back', async () => {
    await proxy.set('refuse');
    expectDatabaseUnavailable(await timed(listUsers));
    expectDatabaseUnavailable(await timed(signIn));
    expect(t.database.state().state).toBe('down');

    await proxy.set('pass');
    expect((await listUsers()).statusCode).toBe(200);
    expect((await signIn()).statusCode).toBe(200);
    expect(t.database.state().state).toBe('up');
  });

  it('a server that accepts and never answers: 503 once the connection times out, not a hang', async () => {
    proxy.cut(); // the pool's idle connections go: the next request needs a new one
    await proxy.set('hang');
    expectDatabaseUnavailable(await timed(listUsers));
    await proxy.set('pass');
    expect((await listUsers()).statusCode).toBe(200);
  });

  it('a query terminated by an administrator (or a shutdown) answers 503', async () => {
    const answer = timed(() => call(t.app, 'GET', '/api/test/faults/sleep'));
    const [sleeper] = await until('the query runs', () =>
      backends(`query like '%pg_sleep%' and state = 'active'`).then((r) => r.length > 0 && r),
    );
    await server.query('select pg_terminate_backend($1)', [sleeper?.pid]);
    expectDatabaseUnavailable(await answer);
  });

  it('a transaction whose connection is terminated while it waits answers 503 and writes nothing', async () => {
    let open = () => {};
    gate = { open: () => open(), wait: new Promise<void>((r) => (open = r)) };
    const answer = timed(() => call(t.app, 'POST', '/api/test/faults/two-writes'));
    const [waiting] = await until('the transaction waits between its writes', () =>
      backends(`state = 'idle in transaction'`).then((r) => r.length > 0 && r),
    );
    await server.query('select pg_terminate_backend($1)', [waiting?.pid]);
    // the connection is checked out, with no query running: the server's goodbye arrives as an
    // 'error' event on it, which ended the process before it had a listener of its own
    await until('the service saw the connection go', async () => t.database.state().state === 'down');
    gate.open();
    const { res, ms } = await answer;
    expectDatabaseUnavailable({ res, ms });
    const rows = await call(t.app, 'GET', '/api/users', { token: t.demoAdminToken });
    expect(rows.statusCode).toBe(200);
    const written = (await t.database.db.execute(sql`select count(*)::int as n from faults_probe`)) as unknown as {
      rows: { n: number }[];
    };
    expect(written.rows).toEqual([{ n: 0 }]);
  });

  it('every connection dropped at once (idle in the pool, the job runner’s, the listener’s): the next requests are served', async () => {
    expect((await listUsers()).statusCode).toBe(200); // some idle connections in the pool
    proxy.cut();
    await until('the service saw its connections go', async () => t.database.state().state === 'down');
    expect((await listUsers()).statusCode).toBe(200);
    expect((await signIn()).statusCode).toBe(200);
  });
});
