import { and, asc, count, eq, ne, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { type SmsProviderName, smsConfigs } from './tables.ts';

/** Queries of SMS configurations; every one goes through the tenant scope. */
export const configs = scoped(smsConfigs);
type TenantScope = Pick<Scope, 'tenantId'>;
export type SmsConfigRow = typeof smsConfigs.$inferSelect;

export function pageConfigs(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { provider?: SmsProviderName; status?: 'active' | 'disabled' },
) {
  const conds: SQL[] = [];
  if (q.provider) conds.push(eq(smsConfigs.provider, q.provider));
  if (q.status) conds.push(eq(smsConfigs.status, q.status));
  return configs.page(db, scope, q, conds.length ? and(...conds) : undefined, asc(smsConfigs.id));
}

export async function hasDefault(db: Db, scope: TenantScope): Promise<boolean> {
  const rows = await db
    .select({ id: smsConfigs.id })
    .from(smsConfigs)
    .where(configs.where(scope, eq(smsConfigs.isDefault, true)))
    .limit(1);
  return rows.length > 0;
}

export async function countOthers(db: Db, scope: TenantScope, id: number): Promise<number> {
  const [r] = await db
    .select({ n: count() })
    .from(smsConfigs)
    .where(configs.where(scope, ne(smsConfigs.id, id)));
  return Number(r?.n ?? 0);
}

/** Clears the default flag of every other configuration of the scope (inside the caller's transaction). */
export async function unsetOtherDefaults(tx: Db, scope: TenantScope, keepId: number | null, now: Date) {
  const others = keepId === null ? undefined : ne(smsConfigs.id, keepId);
  await tx
    .update(smsConfigs)
    .set({ isDefault: false, updatedAt: now })
    .where(configs.where(scope, and(eq(smsConfigs.isDefault, true), others)));
}

async function activeDefaultOf(db: Db, scope: TenantScope): Promise<SmsConfigRow | null> {
  const [row] = await db
    .select()
    .from(smsConfigs)
    .where(configs.where(scope, and(eq(smsConfigs.isDefault, true), eq(smsConfigs.status, 'active'))))
    .limit(1);
  return row ?? null;
}

/** The configuration a tenant sends with by default: its own active default, else the platform's. */
export async function effectiveDefault(db: Db, tenantId: number | null): Promise<SmsConfigRow | null> {
  const own = await activeDefaultOf(db, { tenantId });
  if (own || tenantId === null) return own;
  return activeDefaultOf(db, { tenantId: null });
}
