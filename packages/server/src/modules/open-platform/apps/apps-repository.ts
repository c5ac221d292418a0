import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import { type AppStatus, type ClientType, openApps } from './tables.ts';

/** Queries of applications; every one goes through the tenant scope. */
export const apps = scoped(openApps);
type TenantScope = Pick<Scope, 'tenantId'>;
export type AppRow = typeof openApps.$inferSelect;
export type AppFilter = { name?: string; status?: AppStatus; clientType?: ClientType };

export function pageApps(db: Db, scope: TenantScope, q: PageRequest & AppFilter) {
  const conds: SQL[] = [];
  if (q.name) conds.push(contains(openApps.name, q.name));
  if (q.status) conds.push(eq(openApps.status, q.status));
  if (q.clientType) conds.push(eq(openApps.clientType, q.clientType));
  return apps.page(db, scope, q, conds.length ? and(...conds) : undefined, desc(openApps.id));
}

/** The row, locked until the transaction ends, so concurrent changes apply one after the other. */
export async function lockApp(tx: Db, scope: TenantScope, id: number): Promise<AppRow | null> {
  const [row] = await tx
    .select()
    .from(openApps)
    .where(apps.where(scope, eq(openApps.id, id)))
    .for('update')
    .limit(1);
  return row ?? null;
}

/**
 * Installs a new secret digest. The one being replaced moves to `previous_*` in the same
 * statement (so two concurrent rotations cannot both keep the same old secret), or is dropped
 * when there is no grace period.
 */
export async function rotateSecret(
  db: Db,
  scope: TenantScope,
  id: number,
  next: { secretHash: string; secretHint: string; previousExpiresAt: Date | null; now: Date },
): Promise<AppRow | null> {
  const keep = next.previousExpiresAt !== null;
  const [row] = await db
    .update(openApps)
    .set({
      secretHash: next.secretHash,
      secretHint: next.secretHint,
      previousSecretHash: keep ? sql`${openApps.secretHash}` : null,
      previousSecretExpiresAt: next.previousExpiresAt,
      secretRotatedAt: next.now,
      updatedAt: next.now,
    })
    .where(apps.where(scope, and(eq(openApps.id, id), eq(openApps.clientType, 'confidential'))))
    .returning();
  return row ?? null;
}
