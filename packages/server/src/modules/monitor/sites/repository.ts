import { and, eq, isNull } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
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
    .where(and(isNull(errorSites.tenantId), eq(errorSites.status, 'active')))
    .limit(1);
  return row?.siteKey ?? null;
}
