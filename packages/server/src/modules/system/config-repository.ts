import { and, asc, eq, or } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { systemConfigs } from './tables.ts';

/** Queries of system configuration entries; every one goes through the tenant scope. */
export const configs = scoped(systemConfigs);
type TenantScope = Pick<Scope, 'tenantId'>;

export function pageConfigs(db: Db, scope: TenantScope, q: PageRequest & { keyword?: string }) {
  const filter = q.keyword
    ? or(contains(systemConfigs.key, q.keyword), contains(systemConfigs.name, q.keyword))
    : undefined;
  return configs.page(db, scope, q, filter, asc(systemConfigs.key));
}

export async function findByKey(db: Db, scope: TenantScope, key: string) {
  const [row] = await configs.findMany(db, scope, eq(systemConfigs.key, key));
  return row ?? null;
}

/** Deletes an entry unless it is built in; returns whether a row went. */
export async function deleteUnlessBuiltin(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const rows = await db
    .delete(systemConfigs)
    .where(configs.where(scope, and(eq(systemConfigs.id, id), eq(systemConfigs.builtin, false))))
    .returning({ id: systemConfigs.id });
  return rows.length > 0;
}
