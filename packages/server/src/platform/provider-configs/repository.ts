import { and, count, eq, ne, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Scope } from '../auth/principal.ts';
import type { Db } from '../db/client.ts';
import { type PageRequest, scoped } from '../db/scoped.ts';
import { ownOrPlatform, platformLast } from '../db/tenant-key.ts';

/** Queries shared by provider configuration tables; all go through the tenant scope. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type ConfigTable = PgTable & { id: PgColumn; tenantId: PgColumn; updatedAt: PgColumn };
export type ListedConfigTable = ConfigTable & { isDefault: PgColumn; status: PgColumn };

/** The scope's own rows and, after them, the platform's (the platform's key, 0, sorts last). */
function ownThenPlatform(table: ConfigTable, tenantId: number | null): { where: SQL | undefined; order: SQL } {
  return { where: ownOrPlatform(table.tenantId, tenantId), order: platformLast(table.tenantId) };
}

export function listedConfigRepository<T extends ListedConfigTable>(table: T) {
  type Row = T['$inferSelect'];
  const rows = scoped(table);
  return {
    ...rows,
    page: (db: Db, scope: TenantScope, q: PageRequest, filter?: SQL) => rows.page(db, scope, q, filter, table.id),

    async hasDefault(db: Db, scope: TenantScope): Promise<boolean> {
      const found = await db
        .select({ id: table.id })
        .from(table as PgTable)
        .where(rows.where(scope, eq(table.isDefault, true)))
        .limit(1);
      return found.length > 0;
    },

    async countOthers(db: Db, scope: TenantScope, id: number): Promise<number> {
      const [r] = await db
        .select({ n: count() })
        .from(table as PgTable)
        .where(rows.where(scope, ne(table.id, id)));
      return Number(r?.n ?? 0);
    },

    /** Clears the default flag of the scope's other rows; the caller sets the new one in the same transaction. */
    async unsetOtherDefaults(tx: Db, scope: TenantScope, keepId: number | null, now: Date): Promise<void> {
      await tx
        .update(table)
        .set({ isDefault: false, updatedAt: now } as never)
        .where(rows.where(scope, and(eq(table.isDefault, true), keepId === null ? undefined : ne(table.id, keepId))));
    },

    /** The configuration a tenant uses by default: its own active default, else the platform's (one query). */
    async effectiveDefault(db: Db, tenantId: number | null): Promise<Row | null> {
      const { where, order } = ownThenPlatform(table, tenantId);
      const [row] = await db
        .select()
        .from(table as PgTable)
        .where(and(where, eq(table.isDefault, true), eq(table.status, 'active')))
        .orderBy(order)
        .limit(1);
      return (row as Row | undefined) ?? null;
    },
  };
}

export function singleConfigRepository<T extends ConfigTable>(table: T) {
  type Row = T['$inferSelect'];
  const rows = scoped(table);
  return {
    ...rows,
    /** The configuration saved at exactly this scope (tenant or platform), if any. */
    async own(db: Db, tenantId: number | null): Promise<Row | null> {
      return (await rows.findMany(db, { tenantId }))[0] ?? null;
    },
    /** The configuration that applies to a tenant: its own (enabled or not), else the platform's (one query). */
    async effective(db: Db, tenantId: number | null): Promise<Row | null> {
      const { where, order } = ownThenPlatform(table, tenantId);
      const [row] = await db
        .select()
        .from(table as PgTable)
        .where(where)
        .orderBy(order)
        .limit(1);
      return (row as Row | undefined) ?? null;
    },
  };
}
