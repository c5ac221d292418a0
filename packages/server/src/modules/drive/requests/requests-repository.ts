import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { type ListingAccess, rankIn } from '../nodes/listing-repository.ts';
import { type AccessRequestStatus, driveAccessRequests, driveNodes } from '../tables.ts';

/** Access requests (drive_access_requests): a user asks a node's managers for a role on it. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type RequestRow = typeof driveAccessRequests.$inferSelect;
export type NewRequest = Omit<typeof driveAccessRequests.$inferInsert, 'id' | 'tenantId'>;

export const requestRows = scoped(driveAccessRequests);
const newestFirst = [desc(driveAccessRequests.createdAt), desc(driveAccessRequests.id)];

/** A second pending request of one person for one node is a unique violation (drive_access_requests_pending). */
export const insertRequest = (tx: Db, scope: TenantScope, row: NewRequest) => requestRows.insert(tx, scope, row);

export const findRequest = (db: Db, scope: TenantScope, id: number) => requestRows.findById(db, scope, id);

/** Decides a request that is still pending; null when it no longer is (someone else decided first). */
export async function decideRequest(
  tx: Db,
  scope: TenantScope,
  id: number,
  patch: {
    status: Exclude<AccessRequestStatus, 'pending'>;
    deciderUserId: number;
    grantedRole?: RequestRow['grantedRole'];
    grantExpiresAt?: Date | null;
    decisionNote?: string | null;
    decidedAt: Date;
  },
): Promise<RequestRow | null> {
  const [row] = await tx
    .update(driveAccessRequests)
    .set({ ...patch, updatedAt: patch.decidedAt })
    .where(requestRows.where(scope, and(eq(driveAccessRequests.id, id), eq(driveAccessRequests.status, 'pending'))))
    .returning();
  return row ?? null;
}

const pendingOnLive = (scope: TenantScope) =>
  requestRows.where(scope, and(eq(driveAccessRequests.status, 'pending'), isNull(driveNodes.deletedAt)));

/** The spaces holding pending requests on live nodes of the tenant: where a manager's inbox can have rows. */
export async function spacesWithPending(db: Db, scope: TenantScope): Promise<number[]> {
  const rows = await db
    .selectDistinct({ spaceId: driveAccessRequests.spaceId })
    .from(driveAccessRequests)
    .innerJoin(driveNodes, eq(driveNodes.id, driveAccessRequests.nodeId))
    .where(pendingOnLive(scope));
  return rows.map((r) => r.spaceId);
}

/**
 * A manager's inbox: pending requests on live nodes on which the caller's rank (the listing's SQL
 * form of the role, `rankIn`) is manager, newest first.
 */
export async function pendingForManager(db: Db, scope: TenantScope, a: ListingAccess, page: PageRequest) {
  const where = and(pendingOnLive(scope), sql`${rankIn(a)} >= 4`);
  const [list, totals] = await Promise.all([
    db
      .select({ request: driveAccessRequests })
      .from(driveAccessRequests)
      .innerJoin(driveNodes, eq(driveNodes.id, driveAccessRequests.nodeId))
      .where(where)
      .orderBy(...newestFirst)
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db
      .select({ n: count() })
      .from(driveAccessRequests)
      .innerJoin(driveNodes, eq(driveNodes.id, driveAccessRequests.nodeId))
      .where(where),
  ]);
  return {
    list: list.map((r) => r.request),
    total: Number(totals[0]?.n ?? 0),
    page: page.page,
    pageSize: page.pageSize,
  };
}

/** A user's own requests, any status, newest first. */
export const pageOfRequester = (db: Db, scope: TenantScope, userId: number, page: PageRequest) =>
  requestRows.page(
    db,
    scope,
    page,
    eq(driveAccessRequests.requesterUserId, userId),
    sql`${driveAccessRequests.createdAt} desc, ${driveAccessRequests.id} desc`,
  );
