import { and, eq } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { driveNodeStars } from '../tables.ts';

/** A user's favourites: one row per user and node; starring twice or unstarring an unstarred node changes nothing. */
type TenantScope = Pick<Scope, 'tenantId'>;

export async function star(db: Db, scope: TenantScope, userId: number, nodeId: number, now: Date) {
  await db
    .insert(driveNodeStars)
    .values({ userId, nodeId, tenantId: platformKey(scope.tenantId), createdAt: now })
    .onConflictDoNothing();
}

export async function unstar(db: Db, userId: number, nodeId: number) {
  await db.delete(driveNodeStars).where(and(eq(driveNodeStars.userId, userId), eq(driveNodeStars.nodeId, nodeId)));
}
