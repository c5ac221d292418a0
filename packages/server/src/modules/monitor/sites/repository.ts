import { and, eq, not, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { PLATFORM_TENANT_ID } from '../../../platform/db/tenant-key.ts';
import { errorSites } from '../tables.ts';

/** Reporting sites; every tenant-facing query goes through the tenant scope. */
export const sites = scoped(errorSites);
export type SiteRow = typeof errorSites.$inferSelect;

export function pageSites(db: Db, scope: Pick<Scope, 'tenantId'>, q: PageRequest & { status?: 'active' | 'disabled' }) {
  return sites.page(db, scope, q, q.status ? eq(errorSites.status, q.status) : undefined);
}

/** The active site a public site key names (any tenant: the key is what attributes the tenant). */
export async function activeSiteByKey(db: Db, siteKey: string): Promise<SiteRow | null> {
  const [row] = await db
    .select()
    .from(errorSites)
    .where(and(eq(errorSites.siteKey, siteKey), eq(errorSites.status, 'active')))
    .limit(1);
  return row ?? null;
}

/** Deletes a site of the caller's tenant; its key (to drop from the caches), or null when there was none. */
export async function deleteSite(db: Db, scope: Pick<Scope, 'tenantId'>, id: number): Promise<string | null> {
  const [row] = await db
    .delete(errorSites)
    .where(sites.where(scope, eq(errorSites.id, id)))
    .returning({ siteKey: errorSites.siteKey });
  return row?.siteKey ?? null;
}

/** The key of the platform's site (the console's) when it is active, else null. */
export async function activePlatformSiteKey(db: Db): Promise<string | null> {
  const [row] = await db
    .select({ siteKey: errorSites.siteKey })
    .from(errorSites)
    .where(and(eq(errorSites.tenantId, PLATFORM_TENANT_ID), eq(errorSites.status, 'active')))
    .limit(1);
  return row?.siteKey ?? null;
}

/** The platform's one site (tenant null), unless it exists (the unique index yields): its key, or null. */
export async function insertPlatformSite(db: Db, site: { name: string; siteKey: string; origin: string }) {
  const [row] = await db
    .insert(errorSites)
    .values({ tenantId: PLATFORM_TENANT_ID, name: site.name, siteKey: site.siteKey, allowedOrigins: [site.origin] })
    .onConflictDoNothing()
    .returning({ siteKey: errorSites.siteKey });
  return row ?? null;
}

/** Adds an origin to the platform site's allowed origins when it is missing: its key, or null. */
export async function addPlatformSiteOrigin(db: Db, origin: string, now: Date) {
  const [row] = await db
    .update(errorSites)
    .set({ allowedOrigins: sql`array_append(${errorSites.allowedOrigins}, ${origin})`, updatedAt: now })
    .where(and(eq(errorSites.tenantId, PLATFORM_TENANT_ID), not(sql`${origin} = any(${errorSites.allowedOrigins})`)))
    .returning({ siteKey: errorSites.siteKey });
  return row ?? null;
}
