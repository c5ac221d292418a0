import { and, count, eq, ne, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { PLATFORM_TENANT_ID } from '../../platform/db/tenant-key.ts';
import { tenants } from '../../platform/tenancy/tables.ts';

/** Queries of tenants (the tenant table itself is not tenant-scoped: platform scope only). */
export type TenantRow = typeof tenants.$inferSelect;
export type TenantStatus = TenantRow['status'];
type TenantValues = typeof tenants.$inferInsert;

export async function listTenants(db: Db, page: PageRequest, f: { keyword?: string; status?: TenantStatus }) {
  // the platform tenant (0) owns platform-level rows; it is no tenant of the list
  const conds: (SQL | undefined)[] = [ne(tenants.id, PLATFORM_TENANT_ID)];
  if (f.keyword) conds.push(or(contains(tenants.code, f.keyword), contains(tenants.name, f.keyword)));
  if (f.status) conds.push(eq(tenants.status, f.status));
  const where = and(...conds);
  const [list, totals] = await Promise.all([
    db
      .select()
      .from(tenants)
      .where(where)
      .orderBy(tenants.id)
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(tenants).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), ...page };
}

export async function insertTenant(db: Db, values: TenantValues): Promise<TenantRow> {
  const [tenant] = await db.insert(tenants).values(values).returning();
  if (!tenant) throw new Error('tenant insert returned nothing');
  return tenant;
}

/** Inserts a tenant unless its code is taken; returns it, or null when it existed. */
export async function insertTenantIfAbsent(db: Db, values: TenantValues): Promise<TenantRow | null> {
  const [tenant] = await db.insert(tenants).values(values).onConflictDoNothing().returning();
  return tenant ?? null;
}

export async function updateTenant(db: Db, id: number, values: Partial<TenantValues>): Promise<TenantRow | null> {
  const [row] = await db
    .update(tenants)
    .set(values)
    .where(and(eq(tenants.id, id), ne(tenants.id, PLATFORM_TENANT_ID)))
    .returning();
  return row ?? null;
}
