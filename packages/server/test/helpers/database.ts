import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { seedIdentity } from '../../src/modules/identity/index.ts';
import { seedConsoleSite } from '../../src/modules/monitor/index.ts';
import { createCache } from '../../src/platform/cache/cache.ts';
import { openDatabase } from '../../src/platform/db/client.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { testConfig } from './config.ts';

/** The URL of database `name` on the server of `serverUrl`. */
export function withDatabase(serverUrl: string, name: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** One statement on the server's maintenance connection (CREATE/DROP DATABASE). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * Migrations, the job schema and the identity seed, once per run; test files clone the result.
 * It closes every connection: PostgreSQL copies a template only while nobody is connected to it.
 */
export async function prepareTemplate(url: string): Promise<void> {
  const config = testConfig({ DATABASE_URL: url, DATABASE_POOL_MAX: '2' });
  const database = await openDatabase({ url, kind: 'external', poolMax: 2 });
  try {
    await runMigrations(database);
    const cache = createCache({ redisUrl: null, prefix: 'atrium-template:' });
    const app = await buildApp({ config, database, cache });
    await seedIdentity(app.ctx, app.permissionCodes);
    await seedConsoleSite(app.ctx);
    await app.close();
    await cache.close();
  } finally {
    await database.close();
  }
}
