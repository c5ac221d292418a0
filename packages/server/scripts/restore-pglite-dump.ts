/**
 * One-shot: restores a SQL dump of a PGlite DATA_DIR (versions before issue 12) into the embedded
 * PostgreSQL of the same DATA_DIR (docs/operations.md, "Moving from PGlite"):
 *   npm run db:restore-pglite -- <DATA_DIR> <dump.sql>
 * It holds the service's lock (so the service must be stopped), makes the cluster as a first start
 * would, and runs the dump as the service's role in one transaction, so every object belongs to it
 * and a failure leaves the database empty. It refuses a database that already has tables.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { lockDataDir } from '../src/platform/db/data-dir-lock.ts';
import { startEmbeddedPostgres } from '../src/platform/db/embedded-server.ts';

const [dataDirArg, file] = process.argv.slice(2);
if (!dataDirArg || !file) {
  console.error('usage: npm run db:restore-pglite -- <DATA_DIR> <dump.sql>');
  process.exit(64);
}
const dataDir = resolve(dataDirArg);
const dump = readFileSync(file, 'utf8');
const lock = lockDataDir(dataDir);
const server = await startEmbeddedPostgres(dataDir, { log: console.log });
const db = new pg.Client({ connectionString: server.url });
let failed = false;
try {
  await db.connect();
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from pg_tables where schemaname not in ('pg_catalog', 'information_schema')",
  );
  if ((rows[0]?.n ?? 0) > 0) throw new Error(`the database in ${dataDir}/pg is not empty: nothing was restored`);
  await db.query(`begin;\n${dump}\ncommit;`);
  console.log(`restored ${file} into ${dataDir}/pg`);
} catch (err) {
  failed = true;
  console.error(`restore failed: ${(err as Error).message}`);
} finally {
  await db.end().catch(() => {});
  await server.stop();
  lock.release();
}
process.exit(failed ? 1 : 0);
