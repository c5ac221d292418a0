import { and, asc, eq, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { dictItems, dictTypes } from './tables.ts';

/** Queries of dictionary types and items; every one goes through the tenant scope. */
export const types = scoped(dictTypes);
export const items = scoped(dictItems);

export type DictTypeRow = typeof dictTypes.$inferSelect;
export type DictItemRow = typeof dictItems.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;

export async function activeTypeByCode(db: Db, scope: TenantScope, code: string): Promise<DictTypeRow | null> {
  const [type] = await types.findMany(db, scope, and(eq(dictTypes.code, code), eq(dictTypes.status, 'active')));
  return type ?? null;
}

export function pageTypes(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; status?: 'active' | 'disabled' },
) {
  const filters: (SQL | undefined)[] = [];
  if (q.keyword) filters.push(or(contains(dictTypes.code, q.keyword), contains(dictTypes.name, q.keyword)));
  if (q.status) filters.push(eq(dictTypes.status, q.status));
  return types.page(db, scope, q, and(...filters), asc(dictTypes.id));
}

export function pageItems(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { typeId?: number; keyword?: string; status?: 'active' | 'disabled' },
) {
  const filters: (SQL | undefined)[] = [];
  if (q.typeId !== undefined) filters.push(eq(dictItems.typeId, q.typeId));
  if (q.keyword) filters.push(or(contains(dictItems.label, q.keyword), contains(dictItems.value, q.keyword)));
  if (q.status) filters.push(eq(dictItems.status, q.status));
  return items.page(db, scope, q, and(...filters), asc(dictItems.id));
}

export async function findTypeByCode(db: Db, scope: TenantScope, code: string): Promise<DictTypeRow | null> {
  const [row] = await types.findMany(db, scope, eq(dictTypes.code, code));
  return row ?? null;
}

/** Active items of one type, in display order. `scope` is the type's own level (tenant or platform). */
export async function activeItemsOf(db: Db, scope: TenantScope, typeId: number) {
  const rows = await db
    .select({ id: dictItems.id, label: dictItems.label, value: dictItems.value, sort: dictItems.sort })
    .from(dictItems)
    .where(items.where(scope, and(eq(dictItems.typeId, typeId), eq(dictItems.status, 'active'))))
    .orderBy(asc(dictItems.sort), asc(dictItems.id));
  return rows;
}
