import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { storageConfigs } from './tables.ts';

export type StorageConfigRow = typeof storageConfigs.$inferSelect;

/** The listing's filters (the provider-configuration kit pages the scope's rows). */
export function listFilter(q: { kind?: 'local' | 's3'; status?: 'active' | 'disabled' }): SQL | undefined {
  const conds: SQL[] = [];
  if (q.kind) conds.push(eq(storageConfigs.kind, q.kind));
  if (q.status) conds.push(eq(storageConfigs.status, q.status));
  return conds.length ? and(...conds) : undefined;
}

/** A configuration by id, whichever scope owns it: a managed file reads its bytes back through it. */
export async function configById(db: Db, id: number): Promise<StorageConfigRow | null> {
  const [row] = await db.select().from(storageConfigs).where(eq(storageConfigs.id, id)).limit(1);
  return row ?? null;
}
