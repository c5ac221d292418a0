import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { siteErrors } from './errors.ts';
import { deleteSite, pageSites, type SiteRow, sites } from './repository.ts';
import type { SiteCreate, SiteQuery, SiteUpdate } from './schemas.ts';
import type { SiteCache } from './site-cache.ts';

export type SiteService = ReturnType<typeof createSiteService>;

/** 24 random bytes: a public identifier, not a secret, but unguessable so keys cannot be enumerated. */
export function newSiteKey(): string {
  return `site_${randomBytes(24).toString('base64url')}`;
}

/** Browsers send origins in lower case; stored the same way so the exact match holds. */
const lower = (origins: string[]) => [...new Set(origins.map((o) => o.toLowerCase()))];

export function toSiteView(row: SiteRow) {
  return {
    id: row.id,
    name: row.name,
    siteKey: row.siteKey,
    allowedOrigins: row.allowedOrigins,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Sites that report front-end errors anonymously (spec §4.6 rule 1), managed per tenant. */
export function createSiteService(ctx: AppContext, cache: Pick<SiteCache, 'changed'>) {
  const tenantOf = (scope: Scope) => {
    if (scope.tenantId === null) throw siteErrors.tenantRequired();
    return { tenantId: scope.tenantId };
  };
  return {
    async list(scope: Scope, q: Static<typeof SiteQuery>) {
      const page = await pageSites(ctx.db, scope, q);
      return { ...page, list: page.list.map(toSiteView) };
    },
    async get(scope: Scope, id: number) {
      const row = await sites.findById(ctx.db, scope, id);
      if (!row) throw siteErrors.notFound();
      return toSiteView(row);
    },
    async create(scope: Scope, body: Static<typeof SiteCreate>) {
      const row = await onUniqueViolation(
        sites.insert(ctx.db, tenantOf(scope), {
          name: body.name,
          allowedOrigins: lower(body.allowedOrigins),
          status: body.status ?? 'active',
          siteKey: newSiteKey(),
        }),
        () => siteErrors.nameExists(),
      );
      await cache.changed(row.siteKey);
      return toSiteView(row);
    },
    async update(scope: Scope, id: number, body: Static<typeof SiteUpdate>) {
      const row = await onUniqueViolation(
        sites.update(ctx.db, scope, id, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.allowedOrigins !== undefined ? { allowedOrigins: lower(body.allowedOrigins) } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
          updatedAt: ctx.clock(),
        }),
        () => siteErrors.nameExists(),
      );
      if (!row) throw siteErrors.notFound();
      await cache.changed(row.siteKey);
      return toSiteView(row);
    },
    async remove(scope: Scope, id: number) {
      const siteKey = await deleteSite(ctx.db, scope, id);
      if (siteKey === null) throw siteErrors.notFound();
      await cache.changed(siteKey);
    },
  };
}
