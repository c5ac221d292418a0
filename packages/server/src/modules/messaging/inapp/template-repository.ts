import { and, desc, eq, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { ownOrPlatform, platformLast } from '../../../platform/db/tenant-key.ts';
import { type InAppMessageType, inAppTemplates } from './tables.ts';

/** Queries of in-app templates; every one goes through the tenant scope. */
export const templateRows = scoped(inAppTemplates);
export type TemplateRow = typeof inAppTemplates.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;

export function pageTemplates(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; type?: InAppMessageType; status?: 'active' | 'disabled' },
) {
  const filters: (SQL | undefined)[] = [];
  if (q.keyword) filters.push(or(contains(inAppTemplates.code, q.keyword), contains(inAppTemplates.title, q.keyword)));
  if (q.type) filters.push(eq(inAppTemplates.type, q.type));
  if (q.status) filters.push(eq(inAppTemplates.status, q.status));
  return templateRows.page(db, scope, q, and(...filters), desc(inAppTemplates.id));
}

/**
 * The active template a notification of `tenantId` uses for `code`: the tenant's own, else the
 * platform's. A platform notification (tenantId null) only has the platform's.
 */
export async function activeTemplateByCode(db: Db, tenantId: number | null, code: string): Promise<TemplateRow | null> {
  const owners = ownOrPlatform(inAppTemplates.tenantId, tenantId);
  const rows = await db
    .select()
    .from(inAppTemplates)
    .where(and(eq(inAppTemplates.code, code), eq(inAppTemplates.status, 'active'), owners))
    .orderBy(platformLast(inAppTemplates.tenantId))
    .limit(1);
  return rows[0] ?? null;
}
