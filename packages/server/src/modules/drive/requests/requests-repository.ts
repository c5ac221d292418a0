import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
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

/** The tenant's pending requests on live nodes, newest first (at most `limit`): the candidates of a manager's inbox. */
export function pendingOnLiveNodes(db: Db, scope: TenantScope, limit: number) {
  return db
    .select({ request: driveAccessRequests })
    .from(driveAccessRequests)
    .innerJoin(driveNodes, eq(driveNodes.id, driveAccessRequests.nodeId))
    .where(requestRows.where(scope, and(eq(driveAccessRequests.status, 'pending'), isNull(driveNodes.deletedAt))))
    .orderBy(...newestFirst)
    .limit(limit)
    .then((rows) => rows.map((r) => r.request));
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
