import { fileURLToPath } from 'node:url';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database } from './client.ts';

const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));
const MIGRATION_LOCK = 0x6174726d; // "atrm": instances starting together migrate one at a time

/** Applies the committed SQL migrations; safe to call from several instances at once. */
export async function runMigrations(database: Database): Promise<void> {
  await database.withAdvisoryLock(MIGRATION_LOCK, async () => {
    if (database.kind === 'postgres') {
      await migratePg(database.db as unknown as NodePgDatabase, { migrationsFolder });
    } else {
      await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    }
  });
}
