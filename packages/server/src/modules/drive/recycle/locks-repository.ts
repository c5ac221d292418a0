import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type NodeRow, nodeRows } from '../nodes/node-repository.ts';
import { driveNodes } from '../tables.ts';

/**
 * Check-out locks (spec §3.5) as conditional updates: of two users locking at once, the second
 * update finds the first one's live lock and changes nothing.
 */
type TenantScope = Pick<Scope, 'tenantId'>;

/** Takes or renews `userId`'s lock unless another user's lock is live; null when refused (or the node is gone). */
export async function takeLock(
  tx: Db,
  scope: TenantScope,
  id: number,
  userId: number,
  now: Date,
  expiresAt: Date,
): Promise<NodeRow | null> {
  const n = driveNodes;
  const mine = sql`(${n.lockUserId} = ${userId} and ${n.lockExpiresAt} > ${now})`;
  const [row] = await tx
    .update(n)
    .set({
      lockUserId: userId,
      lockedAt: sql`case when ${mine} then ${n.lockedAt} else ${now}::timestamptz end`,
      lockExpiresAt: expiresAt,
    })
    .where(
      nodeRows.where(
        scope,
        and(
          eq(n.id, id),
          isNull(n.deletedAt),
          sql`(${n.lockUserId} is null or ${n.lockExpiresAt} is null or ${n.lockExpiresAt} <= ${now} or ${n.lockUserId} = ${userId})`,
        ),
      ),
    )
    .returning();
  return row ?? null;
}

/** Clears `holderId`'s live lock; false when it expired or was released meanwhile. */
export async function clearLock(tx: Db, scope: TenantScope, id: number, holderId: number, now: Date) {
  const rows = await tx
    .update(driveNodes)
    .set({ lockUserId: null, lockedAt: null, lockExpiresAt: null })
    .where(
      nodeRows.where(
        scope,
        and(eq(driveNodes.id, id), eq(driveNodes.lockUserId, holderId), gt(driveNodes.lockExpiresAt, now)),
      ),
    )
    .returning({ id: driveNodes.id });
  return rows.length > 0;
}
