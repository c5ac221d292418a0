import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/client.ts';
import { call, createTestApp, type TestApp, type TestStore } from '../helpers/app.ts';
import { adminQuery, withDatabase } from '../helpers/database.ts';

/**
 * Migration 0016 (docs/decisions/0042-platform-tenant.md) on a database the previous release
 * filled: migrated to 0015, two tenants and platform rows with tenant_id NULL in several tables,
 * then started on this release (which migrates at start-up). The NULLs become the platform
 * tenant 0, every tenant_id is NOT NULL, the API reads the rows as platform-level as before, and
 * the keys that used coalesce(tenant_id, 0) or NULLS NOT DISTINCT still refuse a duplicate.
 */
const MIGRATIONS = fileURLToPath(new URL('../../src/migrations', import.meta.url));
const BEFORE = 15; // the last migration of the release before the platform tenant

type Rows<T> = { rows: T[] };

let t: TestApp;
let alpha: number;
let beta: number;
const dirs: string[] = [];

/** A database of its own, migrated to 0015 only: the previous release's schema. */
async function previousReleaseStore(): Promise<TestStore> {
  const server = process.env.TEST_DATABASE_URL as string;
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const dbName = `atrium_t0_${id}`;
  await adminQuery(server, `CREATE DATABASE ${dbName}`);
  const url = withDatabase(server, dbName);
  const folder = mkdtempSync(join(tmpdir(), 'atrium-t0-migrations-'));
  dirs.push(folder);
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= BEFORE);
  writeFileSync(journalPath, JSON.stringify(journal));

  const database = await openDatabase({ url, kind: 'external', poolMax: 2 });
  try {
    await migrate(database.db as unknown as NodePgDatabase, { migrationsFolder: folder });
    await fill(database.db);
  } finally {
    await database.close();
  }
  return {
    url,
    dbName,
    prefix: `atrium-test:${id}:`,
    drop: () => adminQuery(server, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`),
  };
}

/** What the previous release wrote: platform rows (tenant_id NULL) beside two tenants' rows. */
async function fill(db: { execute: (q: ReturnType<typeof sql>) => Promise<unknown> }) {
  const ids = (await db.execute(sql`
    insert into tenants (code, name) values ('alpha', 'Alpha'), ('beta', 'Beta') returning id`)) as Rows<{
    id: number;
  }>;
  [alpha, beta] = ids.rows.map((r) => r.id) as [number, number];
  await db.execute(sql`
    insert into dict_types (tenant_id, code, name) values
      (null, 'colour', 'Platform colours'), (${alpha}, 'colour', 'Alpha colours'), (${beta}, 'size', 'Beta sizes')`);
  await db.execute(sql`
    insert into system_configs (tenant_id, key, value, name) values
      (null, 'legacy.motto', 'platform', 'Motto'), (${alpha}, 'legacy.motto', 'alpha', 'Motto')`);
  await db.execute(sql`
    insert into roles (tenant_id, code, name) values (null, 'legacy-auditor', 'Platform auditor'),
      (${alpha}, 'legacy-auditor', 'Alpha auditor')`);
  await db.execute(sql`
    insert into users (tenant_id, username, password_hash, nickname) values
      (null, 'legacy', 'x', 'Platform legacy'), (${alpha}, 'legacy', 'x', 'Alpha legacy'),
      (${beta}, 'legacy', 'x', 'Beta legacy')`);
  await db.execute(sql`
    insert into departments (tenant_id, name) values (null, 'Platform operations'), (${beta}, 'Beta sales')`);
  await db.execute(sql`
    insert into error_sites (tenant_id, name, site_key) values
      (null, 'Legacy platform site', 'legacy-platform-key'), (${alpha}, 'Legacy platform site', 'legacy-alpha-key')`);
}

beforeAll(async () => {
  const store = await previousReleaseStore();
  try {
    // the app migrates at start-up (0016 only: 0000–0015 are recorded) and seeds as usual
    t = await createTestApp({ store });
  } catch (err) {
    await store.drop();
    throw err;
  }
}, 120_000);
afterAll(async () => {
  await t?.close();
  await t?.store.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const query = async <T>(q: ReturnType<typeof sql>) => ((await t.database.db.execute(q)) as unknown as Rows<T>).rows;

describe('migration 0016 on a filled database (the platform tenant)', () => {
  it('adds the platform tenant, row 0', async () => {
    expect(await query(sql`select id, code, status from tenants where id = 0`)).toEqual([
      { id: 0, code: '_platform', status: 'active' },
    ]);
  });

  it('leaves no tenant_id NULL or nullable, and keeps every tenant’s rows where they were', async () => {
    expect(
      await query(sql`
        select table_name from information_schema.columns
        where table_schema = 'public' and column_name = 'tenant_id' and is_nullable = 'YES'`),
    ).toEqual([]);
    expect(
      await query(sql`select tenant_id, name from dict_types where code in ('colour', 'size') order by name`),
    ).toEqual([
      { tenant_id: alpha, name: 'Alpha colours' },
      { tenant_id: beta, name: 'Beta sizes' },
      { tenant_id: 0, name: 'Platform colours' },
    ]);
    expect(await query(sql`select tenant_id, nickname from users where username = 'legacy' order by nickname`)).toEqual(
      [
        { tenant_id: alpha, nickname: 'Alpha legacy' },
        { tenant_id: beta, nickname: 'Beta legacy' },
        { tenant_id: 0, nickname: 'Platform legacy' },
      ],
    );
    expect(await query(sql`select tenant_id from departments where name = 'Platform operations'`)).toEqual([
      { tenant_id: 0 },
    ]);
    expect(await query(sql`select tenant_id from error_sites where site_key = 'legacy-platform-key'`)).toEqual([
      { tenant_id: 0 },
    ]);
  });

  it('the API reads the rows as platform-level, as before', async () => {
    const platform = await call(t.app, 'GET', '/api/dict-types?keyword=colour', { token: t.adminToken });
    expect(platform.statusCode, platform.body).toBe(200);
    expect(platform.json().data.list).toEqual([expect.objectContaining({ code: 'colour', name: 'Platform colours' })]);
    const inAlpha = await call(t.app, 'GET', '/api/dict-types?keyword=colour', {
      token: t.adminToken,
      tenantId: alpha,
    });
    expect(inAlpha.json().data.list).toEqual([expect.objectContaining({ code: 'colour', name: 'Alpha colours' })]);

    const configs = await call(t.app, 'GET', '/api/system-configs?keyword=legacy.motto', { token: t.adminToken });
    expect(configs.statusCode, configs.body).toBe(200);
    expect(configs.json().data.list).toEqual([expect.objectContaining({ key: 'legacy.motto', value: 'platform' })]);

    const platformUsers = await call(t.app, 'GET', '/api/users?keyword=legacy', { token: t.adminToken });
    expect(platformUsers.statusCode, platformUsers.body).toBe(200);
    expect(platformUsers.json().data.list.map((u: { nickname: string }) => u.nickname)).toEqual(['Platform legacy']);
  });

  it('lists the tenants of the previous release, not the platform tenant', async () => {
    const res = await call(t.app, 'GET', '/api/tenants?pageSize=200', { token: t.adminToken });
    const ids = res.json().data.list.map((x: { id: number }) => x.id);
    expect(ids).toEqual(expect.arrayContaining([alpha, beta]));
    expect(ids).not.toContain(0);
  });

  it('keeps the keys: a second platform row of a code is refused, a tenant’s is not', async () => {
    const dup = await call(t.app, 'POST', '/api/dict-types', {
      token: t.adminToken,
      body: { code: 'colour', name: 'Another platform colours' },
    });
    expect(dup.statusCode).toBe(409);
    await expect(
      t.database.db.execute(
        sql`insert into users (tenant_id, username, password_hash, nickname) values (0, 'legacy', 'x', 'Twin')`,
      ),
    ).rejects.toThrow();
    await expect(
      t.database.db.execute(
        sql`insert into error_sites (tenant_id, name, site_key) values (0, 'Second platform site', 'k2')`,
      ),
    ).rejects.toThrow();
    const inBeta = await call(t.app, 'POST', '/api/dict-types', {
      token: t.adminToken,
      tenantId: beta,
      body: { code: 'colour', name: 'Beta colours' },
    });
    expect(inBeta.statusCode, inBeta.body).toBe(201);
  });
});
