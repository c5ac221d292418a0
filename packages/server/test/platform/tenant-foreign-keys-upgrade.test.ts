import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/client.ts';
import { call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { takeBackChildTenantIds } from './child-tenant-ids.ts';
import { buildTenantResources, platformRows } from './tenant-resources.ts';

/**
 * Migration 0017 (docs/decisions/0043-tenant-foreign-keys.md) on a database the previous release
 * filled. 0017 changes constraints only, so the previous release's database is this one's with
 * 0017 taken back: two tenants with a row of every resource the API can name (the tenant sweep's
 * fixtures), the platform's rows beside them, then the later 0018 taken back, 0017's constraints
 * dropped and its record removed. Started again, the service applies 0017 at start-up; a row of a tenant that does not
 * exist stops it with the constraint and the key named, and leaves the database as it was.
 */
const MIGRATION = fileURLToPath(new URL('../../src/migrations/0017_tenant_foreign_keys.sql', import.meta.url));
const ORPHAN_TENANT = 987_654;

/** Every constraint 0017 adds: (table, name), read from the migration itself. */
const added = [...readFileSync(MIGRATION, 'utf8').matchAll(/ALTER TABLE "(\w+)" ADD CONSTRAINT "(\w+)"/g)].map(
  ([, table, name]) => ({ table: table as string, name: name as string }),
);

type Rows<T> = { rows: T[] };
const query = async <T>(app: TestApp, q: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(q)) as unknown as Rows<T>).rows;

/** Rows per table and tenant, for every table with a tenant_id: what an upgrade must keep. */
/** The tables with a tenant_id (a partitioned table once, not each of its partitions). */
const tenantTables = async (app: TestApp) =>
  (
    await query<{ table_name: string }>(
      app,
      sql`select c.table_name from information_schema.columns c
          join pg_class r on r.relname = c.table_name and r.relnamespace = 'public'::regnamespace
          where c.table_schema = 'public' and c.column_name = 'tenant_id' and not r.relispartition
          order by c.table_name`,
    )
  ).map((r) => r.table_name);

/** Rows per table and tenant, for every table with a tenant_id: what an upgrade must keep. */
async function rowsPerTenant(app: TestApp): Promise<Record<string, Record<string, number>>> {
  const tables = (await tenantTables(app)).map((table_name) => ({ table_name }));
  const out: Record<string, Record<string, number>> = {};
  for (const { table_name } of tables) {
    const counts = await query<{ tenant_id: number; n: number }>(
      app,
      sql`select tenant_id, count(*)::int as n from ${sql.identifier(table_name)} group by tenant_id`,
    );
    out[table_name] = Object.fromEntries(counts.map((c) => [String(c.tenant_id), c.n]));
  }
  return out;
}

/** The keys of 0017 on the tables it named (a partitioned table's partitions carry copies, not counted). */
/**
 * The platform's rows beside the tenants' in every table the fill reached: one of the tenant's
 * rows copied to tenant 0 (its own id from the sequence; a copy that a global key refuses is
 * skipped), so each key of 0017 is checked on platform rows too, not only on the seed's few.
 */
async function copyToPlatform(app: TestApp, from: number) {
  for (const table of await tenantTables(app)) {
    const columns = (
      await query<{ column_name: string }>(
        app,
        sql`select column_name from information_schema.columns
            where table_schema = 'public' and table_name = ${table} and is_generated = 'NEVER'
              and column_name <> 'tenant_id' and coalesce(column_default, '') not like 'nextval(%'`,
      )
    ).map((c) => sql.identifier(c.column_name));
    const list = sql.join(columns, sql`, `);
    await app.database.db.execute(
      sql`insert into ${sql.identifier(table)} (tenant_id, ${list})
          select 0, ${list} from ${sql.identifier(table)} where tenant_id = ${from} limit 1
          on conflict do nothing`,
    );
  }
}

const present = async (app: TestApp) =>
  (
    await query<{ tbl: string; conname: string }>(
      app,
      sql`select conrelid::regclass::text as tbl, conname from pg_constraint where connamespace = 'public'::regnamespace`,
    )
  )
    .filter((c) => added.some((a) => a.name === c.conname && a.table === c.tbl))
    .map((c) => c.conname)
    .sort();

let store: TestStore;
let t: TestApp | undefined;
let alpha: TenantFixture;
let bravo: TenantFixture;
let before: Record<string, Record<string, number>>;
let refused: unknown;
let migrationsBefore: number;
let afterRefusal: { constraints: string[]; migrations: number; orphans: number };

beforeAll(async () => {
  store = await createTestStore();
  // this release, filled, then taken back to the previous release's schema
  const filling = await createTestApp({ store });
  try {
    alpha = await createTenant(filling, 'upg-alpha');
    bravo = await createTenant(filling, 'upg-bravo');
    await buildTenantResources(filling, alpha);
    await buildTenantResources(filling, bravo);
    await platformRows(filling);
    await copyToPlatform(filling, alpha.tenantId);
    await takeBackChildTenantIds(filling.database.db);
    for (const { table, name } of added.toReversed()) {
      await filling.database.db.execute(
        sql`alter table ${sql.identifier(table)} drop constraint ${sql.identifier(name)}`,
      );
    }
    // the two indexes 0017 drops: the new (tenant_id, id) keys serve their queries
    await filling.database.db.execute(sql`create index managed_files_tenant on managed_files (tenant_id, id)`);
    await filling.database.db.execute(
      sql`create index open_webhook_deliveries_tenant on open_webhook_deliveries (tenant_id, id)`,
    );
    await filling.database.db.execute(
      sql`delete from drizzle.__drizzle_migrations where created_at = (select max(created_at) from drizzle.__drizzle_migrations)`,
    );
    before = await rowsPerTenant(filling);
    migrationsBefore = (
      (await filling.database.db.execute(
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      )) as unknown as Rows<{ n: number }>
    ).rows[0]?.n as number;
    // a row the previous release could hold and this one refuses: a tenant that does not exist
    await filling.database.db.execute(
      sql`insert into login_logs (tenant_id, username, ip, success, reason) values (${ORPHAN_TENANT}, 'ghost', '192.0.2.9', false, 'orphan')`,
    );
  } finally {
    await filling.close();
  }

  refused = await createTestApp({ store }).then(
    async (app) => {
      await app.close();
      return null;
    },
    (err: unknown) => err,
  );
  // the refused start left the database as the previous release had it, then the operator fixes it
  const inspect = await openDatabase({ url: store.url, kind: 'external', poolMax: 1 });
  const one = async (q: ReturnType<typeof sql>) =>
    ((await inspect.db.execute(q)) as unknown as Rows<{ n: number }>).rows[0]?.n;
  try {
    afterRefusal = {
      constraints: (
        (await inspect.db.execute(
          sql`select distinct conname from pg_constraint where conname in ${added.map((a) => a.name)}`,
        )) as unknown as Rows<{ conname: string }>
      ).rows.map((r) => r.conname),
      migrations: (await one(sql`select count(*)::int as n from drizzle.__drizzle_migrations`)) ?? -1,
      orphans: (await one(sql`select count(*)::int as n from login_logs where tenant_id = ${ORPHAN_TENANT}`)) ?? -1,
    };
    await inspect.db.execute(sql`delete from login_logs where tenant_id = ${ORPHAN_TENANT}`);
  } finally {
    await inspect.close();
  }
  t = await createTestApp({ store });
}, 240_000);

afterAll(async () => {
  await t?.close();
  await store?.drop();
});

describe('migration 0017 on a database the previous release filled (a foreign key to tenants on every tenant_id)', () => {
  it('stops at a row of a tenant that does not exist, naming the constraint and the key, and applies nothing', () => {
    const text = `${String(refused)} ${String((refused as { cause?: unknown })?.cause)}`;
    expect(text).toMatch(/login_logs_tenant_id_tenants_id_fk/);
    expect(afterRefusal.constraints).toEqual([]);
    expect(afterRefusal.migrations).toBe(migrationsBefore);
    expect(afterRefusal.orphans).toBe(1);
  });

  it('applies every key once the row is gone, and keeps every row where it was', async () => {
    const app = t as TestApp;
    expect(await present(app)).toEqual(added.map((a) => a.name).sort());
    // none lost or moved to another tenant. Rows may be added meanwhile: the start signs the test's
    // administrators in, and the fill's notifications and a cron tick may still be at work
    const after = await rowsPerTenant(app);
    for (const [table, per] of Object.entries(before)) {
      for (const [tenant, n] of Object.entries(per)) {
        expect(after[table]?.[tenant], `${table} of tenant ${tenant}`).toBeGreaterThanOrEqual(n);
      }
    }
    // the fill reached most tables, for both tenants and the platform: the keys were checked on real rows
    const filled = Object.entries(before).filter(
      ([, per]) => per[String(alpha.tenantId)] && per[String(bravo.tenantId)],
    );
    expect(filled.length).toBeGreaterThanOrEqual(55); // of 71 tables; 56 when written
    expect(Object.values(before).filter((per) => per['0']).length).toBeGreaterThanOrEqual(40); // 44 when written
  });

  it('the database now refuses a row of an unknown tenant, and the service goes on as before', async () => {
    const app = t as TestApp;
    await expect(
      app.database.db.execute(
        sql`insert into login_logs (tenant_id, username, ip, success, reason) values (${ORPHAN_TENANT}, 'ghost', '192.0.2.9', false, 'again')`,
      ),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '23503' }) });
    const users = await call(app.app, 'GET', '/api/users?keyword=upg-alpha-user', { token: alpha.adminToken });
    expect(users.statusCode, users.body).toBe(200);
    expect(users.json().data.list.map((u: { username: string }) => u.username)).toEqual(['upg-alpha-user']);
    const role = await call(app.app, 'POST', '/api/roles', {
      token: bravo.adminToken,
      body: { code: 'after-upgrade', name: 'After the upgrade', permissions: [], menuIds: [] },
    });
    expect(role.statusCode, role.body).toBe(201);
  });
});
