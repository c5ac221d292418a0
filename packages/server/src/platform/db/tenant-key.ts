import { eq, inArray, type SQL, sql } from 'drizzle-orm';
import { customType, integer, type PgColumn } from 'drizzle-orm/pg-core';
import { tenants } from '../tenancy/tables.ts';

/**
 * The platform tenant (docs/decisions/0042-platform-tenant.md): the `tenants` row 0 owns every
 * platform-level row, so `tenant_id` is NOT NULL everywhere. The code keeps its own word for the
 * platform scope, `tenantId: null` (Scope, rows, API answers); this file is the one place that
 * translates between the two at the database boundary.
 */
export const PLATFORM_TENANT_ID = 0;

/**
 * The stored key of a scope's tenant: null (the platform) is 0. Drizzle never hands a null to a
 * column's encoder (a null parameter is sent as NULL as it is), so every write of `tenant_id`
 * and every comparison with a value that may be the platform goes through this function; the
 * NOT NULL constraint refuses a write that forgot it.
 */
export function platformKey(tenantId: number | null): number {
  return tenantId ?? PLATFORM_TENANT_ID;
}

/**
 * A `tenant_id` column: integer NOT NULL, a foreign key to `tenants` (decision 0043: the database
 * refuses a row of a tenant that does not exist), read back as null for the platform tenant, so a
 * platform row reads `tenantId: null` as it always has.
 */
const tenantKeyType = customType<{ data: number | null; driverData: number }>({
  dataType: () => 'integer',
  toDriver: (value) => platformKey(value),
  fromDriver: (value) => (value === PLATFORM_TENANT_ID ? null : value),
});
export const tenantKey = (name: string) =>
  tenantKeyType(name)
    .notNull()
    .references(() => tenants.id);

/** The `tenant_id` of a table that holds tenants' rows only (payments): a plain number, same key. */
export const tenantOnlyKey = (name: string) =>
  integer(name)
    .notNull()
    .references(() => tenants.id);

/** `tenant_id` of the scope: the caller's tenant, or the platform tenant for the platform scope. */
export function sameTenantKey(column: PgColumn, tenantId: number | null): SQL {
  return eq(column, platformKey(tenantId));
}

/**
 * The scope's own rows and the platform's: catalogues and configurations that fall back to
 * platform rows. Order by `platformLast` to get the scope's own first.
 */
export function ownOrPlatform(column: PgColumn, tenantId: number | null): SQL {
  return tenantId === null ? eq(column, PLATFORM_TENANT_ID) : inArray(column, [tenantId, PLATFORM_TENANT_ID]);
}

/** A tenant's own rows before the platform's (its key 0 is below every tenant's). */
export function platformLast(column: PgColumn): SQL {
  return sql`${column} desc`;
}
