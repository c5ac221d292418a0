import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';

/**
 * Migration 0018 (docs/scale-out.md, step 3): the ten tables that followed a parent row get their
 * own tenant_id, filled from that parent. Read from the migration itself, so the upgrade tests
 * cannot drift from it.
 */
const MIGRATIONS = new URL('../../src/migrations/', import.meta.url);
const TAG = '0018_child_tenant_id';
const text = readFileSync(fileURLToPath(new URL(`${TAG}.sql`, MIGRATIONS)), 'utf8');

/** Each table 0018 gives a tenant_id, the parent it is filled from and the column that points at it. */
export const CHILD_TENANT_IDS = [
  ...text.matchAll(/UPDATE "(\w+)" SET "tenant_id" = p\."tenant_id" FROM "(\w+)" p WHERE p\."id" = "\w+"\."(\w+)"/g),
].map(([, table, parent, column]) => ({ table: table as string, parent: parent as string, column: column as string }));

type Executor = { execute: (q: ReturnType<typeof sql>) => Promise<unknown> };

/**
 * Takes 0018 back on a database this release filled, so it is the previous release's: the ten
 * columns go (their foreign keys with them), and so does the migration's record.
 */
export async function takeBackChildTenantIds(db: Executor) {
  const journal = JSON.parse(readFileSync(fileURLToPath(new URL('meta/_journal.json', MIGRATIONS)), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  const when = journal.entries.find((e) => e.tag === TAG)?.when;
  if (when === undefined) throw new Error(`${TAG} is not in the journal`);
  for (const { table } of CHILD_TENANT_IDS) {
    await db.execute(sql`alter table ${sql.identifier(table)} drop column tenant_id`);
  }
  await db.execute(sql`delete from drizzle.__drizzle_migrations where created_at = ${when}`);
}
