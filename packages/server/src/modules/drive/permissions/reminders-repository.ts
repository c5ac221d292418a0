import { and, asc, eq, gt, inArray, isNull, lte } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { spaceRows } from '../spaces/space-repository.ts';
import { driveNodePermissions, driveNodes, driveShareLinks, driveSpaces } from '../tables.ts';
import { grantRows } from './grants-repository.ts';

/** The queries of the temporary-grant and share-link expiry reminders (setting shareExpiryReminderHours). */
type TenantScope = Pick<Scope, 'tenantId'>;
const p = driveNodePermissions;
const linkRows = scoped(driveShareLinks);

/** Live, expiring grants not reminded yet. */
const pending = (now: Date) => and(gt(p.expiresAt, now), isNull(p.remindedAt));

/** The tenants (null: platform scope) having live expiring grants not reminded yet. */
export async function tenantsWithPendingReminders(db: Db, now: Date): Promise<(number | null)[]> {
  const rows = await db.selectDistinct({ tenantId: p.tenantId }).from(p).where(pending(now));
  return rows.map((r) => r.tenantId);
}

export type ClaimedGrant = Pick<
  typeof p.$inferSelect,
  'id' | 'spaceId' | 'nodeId' | 'subjectType' | 'subjectId' | 'expiresAt'
>;

/**
 * Marks up to `limit` of a tenant's grants expiring in (now, until] as reminded and answers
 * them. Grants on nodes in the recycle bin are left alone (not claimed). Rows another run holds
 * are skipped and the update re-checks reminded_at, so concurrent runs claim each grant once.
 */
export function claimDueGrants(
  db: Db,
  scope: TenantScope,
  q: { now: Date; until: Date; limit: number },
): Promise<ClaimedGrant[]> {
  const due = db
    .select({ id: p.id })
    .from(p)
    .innerJoin(driveNodes, eq(driveNodes.id, p.nodeId))
    .where(grantRows.where(scope, and(pending(q.now), lte(p.expiresAt, q.until), isNull(driveNodes.deletedAt))))
    .orderBy(asc(p.id))
    .limit(q.limit)
    .for('update', { of: p, skipLocked: true });
  return db
    .update(p)
    .set({ remindedAt: q.now })
    .where(and(inArray(p.id, due), isNull(p.remindedAt)))
    .returning({
      id: p.id,
      spaceId: p.spaceId,
      nodeId: p.nodeId,
      subjectType: p.subjectType,
      subjectId: p.subjectId,
      expiresAt: p.expiresAt,
    });
}

/** The spaces of the given ids (names for the reminders). */
export const findSpaces = (db: Db, scope: TenantScope, ids: number[]) =>
  ids.length ? spaceRows.findMany(db, scope, inArray(driveSpaces.id, ids)) : Promise.resolve([]);

const sl = driveShareLinks;

/** Active links with an expiry still ahead, not reminded yet. */
const pendingLinks = (now: Date) => and(eq(sl.status, 'active'), gt(sl.expiresAt, now), isNull(sl.remindedAt));

/** The tenants (null: platform scope) having active expiring links not reminded yet. */
export async function tenantsWithPendingLinkReminders(db: Db, now: Date): Promise<(number | null)[]> {
  const rows = await db.selectDistinct({ tenantId: sl.tenantId }).from(sl).where(pendingLinks(now));
  return rows.map((r) => r.tenantId);
}

export type ClaimedLink = Pick<typeof sl.$inferSelect, 'id' | 'spaceId' | 'nodeId' | 'createdBy' | 'expiresAt'>;

/**
 * Marks up to `limit` of a tenant's active links expiring in (now, until] as reminded and answers
 * them; links to nodes in the recycle bin are left alone. The same claim as the grants': rows
 * another run holds are skipped and reminded_at is re-checked, so concurrent runs claim a link once.
 */
export function claimDueLinks(
  db: Db,
  scope: TenantScope,
  q: { now: Date; until: Date; limit: number },
): Promise<ClaimedLink[]> {
  const due = db
    .select({ id: sl.id })
    .from(sl)
    .innerJoin(driveNodes, eq(driveNodes.id, sl.nodeId))
    .where(linkRows.where(scope, and(pendingLinks(q.now), lte(sl.expiresAt, q.until), isNull(driveNodes.deletedAt))))
    .orderBy(asc(sl.id))
    .limit(q.limit)
    .for('update', { of: sl, skipLocked: true });
  return db
    .update(sl)
    .set({ remindedAt: q.now })
    .where(and(inArray(sl.id, due), isNull(sl.remindedAt)))
    .returning({ id: sl.id, spaceId: sl.spaceId, nodeId: sl.nodeId, createdBy: sl.createdBy, expiresAt: sl.expiresAt });
}
