import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putChunk, uploadFile } from '../files/files-helpers.ts';
import { call, createTestApp, createTestStore, type TestApp, type TestStore } from '../helpers/app.ts';
import {
  createPlatformUserWithPermissions,
  createTenant,
  type TenantFixture,
  USER_PASSWORD,
} from '../helpers/fixtures.ts';
import { CHILD_TENANT_IDS, takeBackChildTenantIds } from './child-tenant-ids.ts';
import { buildTenantResources, platformRows } from './tenant-resources.ts';

/**
 * Migration 0018 (docs/scale-out.md, step 3) on a database the previous release filled. 0018
 * adds a column, so the previous release's database is this one's with the ten columns dropped:
 * two tenants with a row of every resource the API can name (the tenant sweep's fixtures), plus
 * a targeted announcement read, an upload chunk and a cron run, for each tenant and for the
 * platform where the API allows it. Started again, the service applies 0018 at start-up; every
 * row gets the tenant this release writes for it, taken from its parent row, and none is lost.
 */
type Rows<T> = { rows: T[] };
type Tenanted = Record<string, Record<string, number>>;

const query = async <T>(db: TestApp['database']['db'], q: ReturnType<typeof sql>) =>
  ((await db.execute(q)) as unknown as Rows<T>).rows;

/** Per child table, each row (by its primary key) and its tenant_id. */
async function tenantOfEachRow(db: TestApp['database']['db']): Promise<Tenanted> {
  const out: Tenanted = {};
  for (const { table } of CHILD_TENANT_IDS) {
    const key = (
      await query<{ column_name: string }>(
        db,
        sql`select a.attname as column_name from pg_index i
            join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
            where i.indrelid = ${table}::regclass and i.indisprimary order by a.attname`,
      )
    ).map((c) => sql.identifier(c.column_name));
    const rows = await query<{ k: string; tenant_id: number }>(
      db,
      sql`select concat_ws('/', ${sql.join(key, sql`, `)}) as k, tenant_id from ${sql.identifier(table)}`,
    );
    out[table] = Object.fromEntries(rows.map((r) => [r.k, r.tenant_id]));
  }
  return out;
}

/** Rows of the child tables whose tenant_id is not their parent's. */
async function unlikeTheirParent(db: TestApp['database']['db']) {
  const out: Record<string, number> = {};
  for (const { table, parent, column } of CHILD_TENANT_IDS) {
    const [row] = await query<{ n: number }>(
      db,
      sql`select count(*)::int as n from ${sql.identifier(table)} c join ${sql.identifier(parent)} p
          on p.id = c.${sql.identifier(column)} where c.tenant_id <> p.tenant_id`,
    );
    out[table] = row?.n ?? -1;
  }
  return out;
}

/**
 * What the sweep's fixtures do not write (and the platform's rows do not hold): a read targeted
 * announcement, an upload chunk, a file and a role with its menus.
 */
async function moreChildRows(t: TestApp, token: string, userId: number) {
  const created = await call(t.app, 'POST', '/api/announcements', {
    token,
    body: {
      title: 'for me',
      content: '<p>only me</p>',
      targetType: 'targeted',
      targets: [{ type: 'user', id: userId }],
    },
  });
  if (created.statusCode !== 201) throw new Error(`announcement failed: ${created.body}`);
  const id = created.json().data.id;
  const published = await call(t.app, 'POST', `/api/announcements/${id}/publish`, { token });
  if (published.statusCode >= 300) throw new Error(`publish failed: ${published.body}`);
  const read = await call(t.app, 'POST', `/api/announcements/${id}/read`, { token });
  if (read.statusCode !== 200) throw new Error(`read failed: ${read.body}`);
  const upload = await call(t.app, 'POST', '/api/files/uploads', {
    token,
    body: { name: 'half.pdf', size: 2048, chunkSize: 1024 },
  });
  if (upload.statusCode !== 201) throw new Error(`upload init failed: ${upload.body}`);
  const head = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1024 - 9)]);
  const chunk = await putChunk(t, token, upload.json().data.id, 0, head);
  if (chunk.statusCode !== 200) throw new Error(`chunk failed: ${chunk.body}`);
  const file = await uploadFile(t, token, { name: 'note.txt', data: Buffer.from('note'), contentType: 'text/plain' });
  if (file.statusCode >= 300) throw new Error(`file upload failed: ${file.body}`);
  const role = await call(t.app, 'POST', '/api/roles', {
    token,
    body: { code: 'cti-role', name: 'Role with menus', permissions: [], menuIds: [] },
  });
  if (role.statusCode !== 201) throw new Error(`role failed: ${role.body}`);
}

let store: TestStore;
let t: TestApp | undefined;
let alpha: TenantFixture;
let bravo: TenantFixture;
let written: Tenanted;
let writtenUnlike: Record<string, number>;
let crossing: { userId: number; roleId: number };
let refreshBefore: string;

beforeAll(async () => {
  store = await createTestStore();
  const filling = await createTestApp({ store });
  try {
    alpha = await createTenant(filling, 'cti-alpha');
    bravo = await createTenant(filling, 'cti-bravo');
    for (const tenant of [alpha, bravo]) {
      await buildTenantResources(filling, tenant);
      await moreChildRows(filling, tenant.adminToken, tenant.adminUserId);
    }
    const platform = await platformRows(filling);
    const [superAdmin] = await query<{ id: number }>(
      filling.database.db,
      sql`select id from users where tenant_id = 0 and is_super order by id limit 1`,
    );
    await moreChildRows(filling, filling.adminToken, superAdmin?.id as number);
    // a platform user holding a platform role (role_menus, user_roles of tenant 0), and a cron run
    await createPlatformUserWithPermissions(filling, ['system:user:list']);
    const jobId = platform['/api/cron-jobs id']?.[0]?.value;
    const run = await call(filling.app, 'POST', `/api/cron-jobs/${jobId}/run`, { token: filling.adminToken });
    if (run.statusCode >= 300) throw new Error(`cron run failed: ${run.body}`);
    const login = await call(filling.app, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: USER_PASSWORD, tenantCode: alpha.code },
    });
    refreshBefore = login.json().data.refreshToken;

    written = await tenantOfEachRow(filling.database.db);
    writtenUnlike = await unlikeTheirParent(filling.database.db);
    await takeBackChildTenantIds(filling.database.db);
    // a link the previous release could hold though no API writes it (an old import): alpha's
    // user given a platform role; it takes its user's tenant, as every user_roles row does
    const [role] = await query<{ id: number }>(
      filling.database.db,
      sql`insert into roles (tenant_id, code, name) values (0, 'cti-crossing', 'Crossing') returning id`,
    );
    crossing = { userId: alpha.adminUserId, roleId: role?.id as number };
    await filling.database.db.execute(
      sql`insert into user_roles (user_id, role_id) values (${crossing.userId}, ${crossing.roleId})`,
    );
  } finally {
    await filling.close();
  }
  t = await createTestApp({ store });
}, 240_000);

afterAll(async () => {
  await t?.close();
  await store?.drop();
});

describe('migration 0018 on a database the previous release filled (tenant_id on ten child tables)', () => {
  it('this release writes every child row with its parent’s tenant: the fill had rows of both tenants and the platform', () => {
    expect(writtenUnlike).toEqual(Object.fromEntries(CHILD_TENANT_IDS.map(({ table }) => [table, 0])));
    const tenantsOf = (table: string) => new Set(Object.values(written[table] ?? {}));
    for (const { table } of CHILD_TENANT_IDS) {
      if (table === 'cron_job_runs') continue; // cron jobs are the platform's only
      expect([...tenantsOf(table)], table).toEqual(expect.arrayContaining([alpha.tenantId, bravo.tenantId]));
    }
    const platformHas = CHILD_TENANT_IDS.map(({ table }) => table).filter((table) => tenantsOf(table).has(0));
    // user_positions and user_group_members: no platform user holds a position or is in a group
    expect(platformHas.sort()).toEqual(
      [
        'announcement_reads',
        'announcement_recipients',
        'cron_job_runs',
        'file_refs',
        'file_upload_chunks',
        'refresh_tokens',
        'role_menus',
        'user_roles',
      ].sort(),
    );
  });

  it('gives every row the tenant this release would have written, and loses none', async () => {
    const db = (t as TestApp).database.db;
    const after = await tenantOfEachRow(db);
    const crossingKey = `${crossing.roleId}/${crossing.userId}`;
    expect(after.user_roles?.[crossingKey]).toBe(alpha.tenantId);
    delete after.user_roles?.[crossingKey];
    // the start signs the test's administrators in, and a built-in job may tick meanwhile: rows
    // more there, none lost or moved
    const grown = new Set(['refresh_tokens', 'cron_job_runs']);
    for (const { table } of CHILD_TENANT_IDS) {
      if (grown.has(table)) expect(after[table], table).toMatchObject(written[table] as object);
      else expect(after[table], table).toEqual(written[table]);
    }
    const columns = await query<{ table_name: string; is_nullable: string }>(
      db,
      sql`select table_name, is_nullable from information_schema.columns
          where table_schema = 'public' and column_name = 'tenant_id' and table_name in ${CHILD_TENANT_IDS.map((c) => c.table)}`,
    );
    expect(columns.map((c) => [c.table_name, c.is_nullable]).sort()).toEqual(
      CHILD_TENANT_IDS.map(({ table }) => [table, 'NO']).sort(),
    );
  });

  it('the database refuses a child row of an unknown tenant, and the service goes on as before', async () => {
    const app = t as TestApp;
    await expect(
      app.database.db.execute(
        sql`insert into user_roles (tenant_id, user_id, role_id) values (987654, ${bravo.adminUserId}, ${crossing.roleId})`,
      ),
    ).rejects.toMatchObject({ cause: expect.objectContaining({ code: '23503' }) });
    // a refresh token issued before the upgrade still rotates, and its successor carries the tenant
    const refreshed = await call(app.app, 'POST', '/api/auth/refresh', { body: { refreshToken: refreshBefore } });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const [latest] = await query<{ tenant_id: number }>(
      app.database.db,
      sql`select tenant_id from refresh_tokens order by id desc limit 1`,
    );
    expect(latest?.tenant_id).toBe(alpha.tenantId);
    const role = await call(app.app, 'POST', '/api/roles', {
      token: bravo.adminToken,
      body: { code: 'after-0018', name: 'After the upgrade', permissions: [], menuIds: [] },
    });
    expect(role.statusCode, role.body).toBe(201);
    const bound = await query<{ tenant_id: number }>(
      app.database.db,
      sql`select distinct tenant_id from role_menus where role_id = ${role.json().data.id}`,
    );
    expect(bound).toEqual([{ tenant_id: bravo.tenantId }]);
  });
});
