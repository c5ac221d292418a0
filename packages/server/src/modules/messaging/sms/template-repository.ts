import { and, asc, eq, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { ownOrPlatform, platformLast } from '../../../platform/db/tenant-key.ts';
import { smsTemplates } from './tables.ts';

/** Queries of SMS templates; every one goes through the tenant scope. */
export const templates = scoped(smsTemplates);
type TenantScope = Pick<Scope, 'tenantId'>;
export type SmsTemplateRow = typeof smsTemplates.$inferSelect;

export function pageTemplates(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; status?: 'active' | 'disabled' },
) {
  const conds: SQL[] = [];
  if (q.keyword) conds.push(or(contains(smsTemplates.code, q.keyword), contains(smsTemplates.name, q.keyword)) as SQL);
  if (q.status) conds.push(eq(smsTemplates.status, q.status));
  return templates.page(db, scope, q, conds.length ? and(...conds) : undefined, asc(smsTemplates.id));
}

/** The active template of this code a tenant sends with: its own, else the platform's. */
export async function activeTemplate(db: Db, tenantId: number | null, code: string): Promise<SmsTemplateRow | null> {
  const owners = ownOrPlatform(smsTemplates.tenantId, tenantId);
  const [row] = await db
    .select()
    .from(smsTemplates)
    .where(and(owners, eq(smsTemplates.code, code), eq(smsTemplates.status, 'active')))
    // the tenant's own row first
    .orderBy(platformLast(smsTemplates.tenantId))
    .limit(1);
  return row ?? null;
}
