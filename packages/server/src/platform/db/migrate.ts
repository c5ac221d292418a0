import { fileURLToPath } from 'node:url';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type { Database } from './client.ts';

const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));
const MIGRATION_LOCK = 0x6174726d; // "atrm": instances starting together migrate one at a time

/** Applies the committed SQL migrations; safe to call from several instances at once. */
export async function runMigrations(database: Database): Promise<void> {
  await database.withAdvisoryLock(MIGRATION_LOCK, async () => {
    await migrate(database.db as unknown as NodePgDatabase, { migrationsFolder });
  });
}
