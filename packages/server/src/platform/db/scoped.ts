import { and, count, eq, inArray, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Scope } from '../auth/principal.ts';
import type { Db } from './client.ts';
import { platformKey, sameTenantKey } from './tenant-key.ts';

/**
 * Tenant isolation lives here, in one place: every read, update and delete of a tenant-owned
 * table filters by the caller's tenant, and every insert stamps it. A row of another tenant is
 * simply not found (404), so nothing leaks, not even its existence.
 */
type TenantTable = PgTable & { id: PgColumn; tenantId: PgColumn };

export function tenantFilter(table: { tenantId: PgColumn }, scope: Pick<Scope, 'tenantId'>): SQL {
  return sameTenantKey(table.tenantId, scope.tenantId);
}

export type PageRequest = { page: number; pageSize: number };
export type Page<T> = { list: T[]; total: number; page: number; pageSize: number };

export function scoped<T extends TenantTable>(table: T) {
  type Row = T['$inferSelect'];
  type New = Omit<T['$inferInsert'], 'id' | 'tenantId'>;
  const where = (scope: Pick<Scope, 'tenantId'>, extra?: SQL) =>
    extra ? and(tenantFilter(table, scope), extra) : tenantFilter(table, scope);

  return {
    table,
    where,
    async findById(db: Db, scope: Pick<Scope, 'tenantId'>, id: number): Promise<Row | null> {
      const rows = await db
        .select()
        .from(table as PgTable)
        .where(where(scope, eq(table.id, id)))
        .limit(1);
      return (rows[0] as Row | undefined) ?? null;
    },
    async findMany(db: Db, scope: Pick<Scope, 'tenantId'>, filter?: SQL, orderBy?: SQL | PgColumn): Promise<Row[]> {
      const q = db
        .select()
        .from(table as PgTable)
        .where(where(scope, filter));
      return (await (orderBy ? q.orderBy(orderBy) : q.orderBy(table.id))) as Row[];
    },
    async page(
      db: Db,
      scope: Pick<Scope, 'tenantId'>,
      req: PageRequest,
      filter?: SQL,
      orderBy?: SQL | PgColumn,
    ): Promise<Page<Row>> {
      const cond = where(scope, filter);
      const [list, totals] = await Promise.all([
        db
          .select()
          .from(table as PgTable)
          .where(cond)
          .orderBy(orderBy ?? table.id)
          .limit(req.pageSize)
          .offset((req.page - 1) * req.pageSize),
        db
          .select({ n: count() })
          .from(table as PgTable)
          .where(cond),
      ]);
      return { list: list as Row[], total: Number(totals[0]?.n ?? 0), page: req.page, pageSize: req.pageSize };
    },
    async insert(db: Db, scope: Pick<Scope, 'tenantId'>, values: New): Promise<Row> {
      const rows = await db
        .insert(table)
        .values({ ...values, tenantId: platformKey(scope.tenantId) } as T['$inferInsert'])
        .returning();
      return (rows as Row[])[0] as Row;
    },
    async update(db: Db, scope: Pick<Scope, 'tenantId'>, id: number, values: Partial<New>): Promise<Row | null> {
      const rows = await db
        .update(table)
        .set(values as never)
        .where(where(scope, eq(table.id, id)))
        .returning();
      return ((rows as Row[])[0] as Row | undefined) ?? null;
    },
    /** Deletes the given ids of the caller's tenant; returns the ids actually deleted. */
    async deleteMany(db: Db, scope: Pick<Scope, 'tenantId'>, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .delete(table)
        .where(where(scope, inArray(table.id, ids)))
        .returning({ id: table.id });
      return (rows as { id: number }[]).map((r) => r.id);
    },
  };
}
