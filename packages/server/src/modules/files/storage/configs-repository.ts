import { and, asc, eq, ne, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { storageConfigs } from './tables.ts';

/** Queries of storage configurations; every one goes through the tenant scope. */
export const configs = scoped(storageConfigs);
type TenantScope = Pick<Scope, 'tenantId'>;
export type StorageConfigRow = typeof storageConfigs.$inferSelect;

export function pageConfigs(db: Db, scope: TenantScope, q: PageRequest & { kind?: 'local' | 's3'; status?: string }) {
  const conds: SQL[] = [];
  if (q.kind) conds.push(eq(storageConfigs.kind, q.kind));
  if (q.status) conds.push(eq(storageConfigs.status, q.status as 'active' | 'disabled'));
  return configs.page(db, scope, q, conds.length ? and(...conds) : undefined, asc(storageConfigs.id));
}

/** Clears the default flag of every other configuration of the scope (inside the caller's transaction). */
export async function unsetOtherDefaults(tx: Db, scope: TenantScope, keepId: number | null, now: Date) {
  const others = keepId === null ? undefined : ne(storageConfigs.id, keepId);
  await tx
    .update(storageConfigs)
    .set({ isDefault: false, updatedAt: now })
    .where(configs.where(scope, and(eq(storageConfigs.isDefault, true), others)));
}

/** Deletes a configuration unless it is the default; returns whether a row went. */
export async function deleteUnlessDefault(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const rows = await db
    .delete(storageConfigs)
    .where(configs.where(scope, and(eq(storageConfigs.id, id), eq(storageConfigs.isDefault, false))))
    .returning({ id: storageConfigs.id });
  return rows.length > 0;
}
