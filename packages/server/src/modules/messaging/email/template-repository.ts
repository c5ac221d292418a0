import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { ownOrPlatform } from '../../../platform/db/tenant-key.ts';
import { emailTemplates } from './tables.ts';

/** Queries of email templates; every one goes through the tenant scope. */
export const templateRows = scoped(emailTemplates);
export type EmailTemplateRow = typeof emailTemplates.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;
type Status = EmailTemplateRow['status'];

export function pageTemplates(db: Db, scope: TenantScope, q: PageRequest & { keyword?: string; status?: Status }) {
  const f: (SQL | undefined)[] = [];
  if (q.keyword) f.push(or(contains(emailTemplates.code, q.keyword), contains(emailTemplates.name, q.keyword)));
  if (q.status) f.push(eq(emailTemplates.status, q.status));
  return templateRows.page(db, scope, q, and(...f), desc(emailTemplates.id));
}

/**
 * The active templates with these codes that apply to a tenant: its own, else the platform's
 * (one query for a whole batch).
 */
export async function activeTemplatesByCode(
  db: Db,
  tenantId: number | null,
  codes: string[],
): Promise<Map<string, EmailTemplateRow>> {
  const found = new Map<string, EmailTemplateRow>();
  if (codes.length === 0) return found;
  const owners = ownOrPlatform(emailTemplates.tenantId, tenantId);
  const rows = await db
    .select()
    .from(emailTemplates)
    .where(and(owners, inArray(emailTemplates.code, codes), eq(emailTemplates.status, 'active')));
  for (const row of rows) {
    if (!found.has(row.code) || row.tenantId !== null) found.set(row.code, row);
  }
  return found;
}
