import { and, eq, gt, lte, ne } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { PLATFORM_TENANT_ID } from '../../platform/db/tenant-key.ts';
import { tenants } from '../../platform/tenancy/tables.ts';
import { roles, userRoles, users } from './tables.ts';
import { TENANT_ADMIN_ROLE } from './tenants-service.ts';

/** Active tenants whose expiry falls in (from, to]. */
export function tenantsExpiringBetween(db: Db, from: Date, to: Date) {
  return db
    .select({ id: tenants.id, name: tenants.name, expiresAt: tenants.expiresAt })
    .from(tenants)
    .where(
      and(
        ne(tenants.id, PLATFORM_TENANT_ID),
        eq(tenants.status, 'active'),
        gt(tenants.expiresAt, from),
        lte(tenants.expiresAt, to),
      ),
    )
    .orderBy(tenants.id);
}

/** Active holders of a tenant's administrator role. */
export async function tenantAdminIds(db: Db, tenantId: number): Promise<number[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .innerJoin(userRoles, eq(userRoles.userId, users.id))
    .innerJoin(roles, eq(roles.id, userRoles.roleId))
    .where(
      and(
        eq(users.tenantId, tenantId),
        eq(users.status, 'active'),
        eq(roles.tenantId, tenantId),
        eq(roles.code, TENANT_ADMIN_ROLE),
      ),
    )
    .orderBy(users.id);
  return rows.map((r) => r.id);
}

/** Active platform super administrators: who platform-wide alerts (licence, server, cron) go to. */
export async function platformAdminIds(db: Db): Promise<number[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.tenantId, PLATFORM_TENANT_ID), eq(users.isSuper, true), eq(users.status, 'active')))
    .orderBy(users.id);
  return rows.map((r) => r.id);
}
