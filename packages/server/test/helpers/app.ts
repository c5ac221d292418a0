import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.ts';
import { seedIdentity } from '../../src/modules/identity/index.ts';
import { seedConsoleSite } from '../../src/modules/monitor/index.ts';
import { loadLicense } from '../../src/platform/auth/license.ts';
import { type Cache, createCache } from '../../src/platform/cache/cache.ts';
import { type Database, openDatabase } from '../../src/platform/db/client.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import type { UndocumentedAnswer } from '../../src/platform/http/server.ts';
import { ADMIN_PASSWORD, testConfig } from './config.ts';
import { adminQuery, withDatabase } from './database.ts';

/**
 * Test databases: each call clones the run's template (migrated and seeded once, in
 * test/setup/global-database.ts) into a database of its own on the run's server — TEST_DATABASE_URL,
 * or the embedded cluster the run started — dropped by `drop()`. With TEST_REDIS_URL the cache is that
 * Redis under a key prefix of its own (deleted by `drop()`), otherwise the in-memory cache.
 */
export { ADMIN_PASSWORD } from './config.ts';
export const usingRedis = Boolean(process.env.TEST_REDIS_URL);

export type TestStore = { url: string; dbName: string; prefix: string; drop(): Promise<void> };

export async function createTestStore(): Promise<TestStore> {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const prefix = `atrium-test:${id}:`;
  const server = requiredEnv('TEST_DATABASE_URL');
  const dbName = `atrium_test_${id}`;
  await adminQuery(server, `CREATE DATABASE ${dbName} TEMPLATE ${requiredEnv('TEST_TEMPLATE_DATABASE')}`);
  return {
    url: withDatabase(server, dbName),
    dbName,
    prefix,
    async drop() {
      await adminQuery(server, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      const redisUrl = process.env.TEST_REDIS_URL;
      if (redisUrl) {
        const { Redis } = await import('ioredis');
        const r = new Redis(redisUrl);
        let cursor = '0';
        do {
          const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await r.quit();
      }
    },
  };
}

/** Set by the run's global setup (vitest.config.ts); a file run outside it has none. */
function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through vitest (its global setup sets it)`);
  return value;
}

export type TestApp = {
  app: FastifyInstance;
  database: Database;
  cache: Cache;
  store: TestStore;
  /** super administrator's access token (platform scope) */
  adminToken: string;
  /** the demo tenant's administrator's access token */
  demoAdminToken: string;
  demoTenantId: number;
  close(): Promise<void>;
};

export type TestAppOptions = {
  env?: Record<string, string>;
  license?: string;
  clock?: () => Date;
  /** reuse a store (several instances on one database); the creator drops it */
  store?: TestStore;
  /** extra (test-only) routes, registered through the real route() helper before the docs routes */
  extraRoutes?: AppDeps['extraRoutes'];
  logDestination?: AppDeps['logDestination'];
  /** events of modules that do not exist yet (sample webhook events) */
  extraEvents?: AppDeps['extraEvents'];
  /** a built console of the test's own (default: packages/console/dist, built or not) */
  consoleDir?: AppDeps['consoleDir'];
};

/**
 * One app on a fresh database, seeded, with tokens for the platform and demo administrators.
 * Every answer it gives is checked against the route's document: `close()` fails naming each
 * status or media type a route answered that its document does not declare, so the document the
 * console is generated from stays truthful for everything the tests provoke.
 */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const ownStore = !opts.store;
  const store = opts.store ?? (await createTestStore());
  const config = testConfig({
    DATABASE_URL: store.url,
    DATABASE_POOL_MAX: '5',
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: store.prefix } : {}),
    ...opts.env,
  });
  const database = await openDatabase({ url: store.url, kind: 'external', poolMax: config.databasePoolMax });
  const cache = createCache({ redisUrl: config.redisUrl, prefix: config.redisKeyPrefix });
  let app: FastifyInstance | undefined;
  // A setup that fails halfway (the server out of connections, a seed that throws) leaves nothing
  // running: the test never gets the handle to close it, and a live app keeps its connections and
  // its cron for the rest of the worker, starving every file after it.
  const undo = async () => {
    await app?.close().catch(() => {});
    await cache.close().catch(() => {});
    await database.close().catch(() => {});
    if (ownStore) await store.drop().catch(() => {});
  };
  try {
    return await setUp();
  } catch (err) {
    await undo();
    throw err;
  }

  async function setUp(): Promise<TestApp> {
    await runMigrations(database);
    const undocumented = new Map<string, UndocumentedAnswer>();
    app = await buildApp({
      onUndocumentedAnswer: (a) => undocumented.set(`${a.operation} ${a.problem}`, a),
      config,
      database,
      cache,
      clock: opts.clock,
      extraRoutes: opts.extraRoutes,
      logDestination: opts.logDestination,
      extraEvents: opts.extraEvents,
      consoleDir: opts.consoleDir,
      ...(opts.license ? { license: loadLicense(opts.license) } : {}),
    });
    const built = app;
    await seedIdentity(built.ctx, built.permissionCodes);
    await seedConsoleSite(built.ctx);
    const adminToken = await login(built, 'admin', ADMIN_PASSWORD);
    const demoAdminToken = await login(built, 'admin', ADMIN_PASSWORD, 'demo');
    const me = await call(built, 'GET', '/api/auth/me', { token: demoAdminToken });
    return {
      app: built,
      database,
      cache,
      store,
      adminToken,
      demoAdminToken,
      demoTenantId: me.json().data.user.tenantId,
      async close() {
        await built.close();
        await cache.close();
        await database.close();
        if (ownStore) await store.drop();
        if (undocumented.size) {
          const lines = [...undocumented.values()].map(
            (a) => `  ${a.operation} (${a.method} ${a.url.slice(0, 100)}): ${a.problem}`,
          );
          throw new Error(`answers the OpenAPI document does not declare (route.ts responses):\n${lines.join('\n')}`);
        }
      },
    };
  }
}

export async function login(
  app: FastifyInstance,
  username: string,
  password: string,
  tenantCode?: string,
): Promise<string> {
  const res = await call(app, 'POST', '/api/auth/login', {
    body: { username, password, ...(tenantCode ? { tenantCode } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`login ${username}@${tenantCode ?? 'platform'} failed: ${res.body}`);
  return res.json().data.accessToken;
}

/** A request through app.inject with an optional bearer token, JSON body, tenant header. */
export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  opts: { token?: string; body?: unknown; tenantId?: number; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.tenantId !== undefined) headers['x-tenant-id'] = String(opts.tenantId);
  return app.inject({
    method,
    url,
    headers,
    ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
  });
}

/**
 * Two instances of the service on one database (and one Redis key prefix when TEST_REDIS_URL is
 * set): what several deployed instances share. `close()` stops both and drops the store.
 */
export async function createTwoInstances(opts: Omit<TestAppOptions, 'store'> = {}) {
  const store = await createTestStore();
  const started: TestApp[] = [];
  const close = async () => {
    for (const app of started.reverse()) await app.close();
    await store.drop();
  };
  try {
    started.push(await createTestApp({ ...opts, store }));
    started.push(await createTestApp({ ...opts, store }));
  } catch (err) {
    await close();
    throw err;
  }
  const [a, b] = started as [TestApp, TestApp];
  return { a, b, store, close };
}
