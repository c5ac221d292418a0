import { and, asc, eq, gt, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { scoped } from '../../platform/db/scoped.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { fileUploadChunks, fileUploadSessions } from './tables.ts';

/** Queries of chunked upload sessions; tenant-scoped, and a session is its creator's alone. */
export const sessionRows = scoped(fileUploadSessions);
export type SessionRow = typeof fileUploadSessions.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;
const s = fileUploadSessions;

const mine = (scope: TenantScope, userId: number | null, id: number) =>
  sessionRows.where(
    scope,
    and(eq(s.id, id), userId === null ? sql`${s.ownerUserId} is null` : eq(s.ownerUserId, userId)),
  );

export async function findSession(db: Db, scope: TenantScope, userId: number | null, id: number) {
  const rows = await db
    .select()
    .from(s)
    .where(mine(scope, userId, id))
    .limit(1);
  return rows[0] ?? null;
}

export async function receivedChunks(db: Db, sessionId: number): Promise<number[]> {
  const rows = await db
    .select({ i: fileUploadChunks.chunkIndex })
    .from(fileUploadChunks)
    .where(eq(fileUploadChunks.sessionId, sessionId))
    .orderBy(asc(fileUploadChunks.chunkIndex));
  return rows.map((r) => r.i);
}

/** Keeps an open session alive; false when it is gone or no longer open. */
export async function touchOpen(db: Db, id: number, expiresAt: Date): Promise<boolean> {
  const rows = await db
    .update(s)
    .set({ expiresAt })
    .where(and(eq(s.id, id), eq(s.status, 'open')))
    .returning({ id: s.id });
  return rows.length > 0;
}

export async function sessionExists(db: Db, id: number): Promise<boolean> {
  const rows = await db.select({ id: s.id }).from(s).where(eq(s.id, id)).limit(1);
  return rows.length > 0;
}

/** Records a chunk of a session of the scope's tenant, which it carries; a repeat of the same index replaces the previous record. */
export async function upsertChunk(db: Db, scope: TenantScope, sessionId: number, index: number, size: number) {
  await db
    .insert(fileUploadChunks)
    .values({ tenantId: platformKey(scope.tenantId), sessionId, chunkIndex: index, size })
    .onConflictDoUpdate({ target: [fileUploadChunks.sessionId, fileUploadChunks.chunkIndex], set: { size } });
}

export async function forgetChunk(db: Db, sessionId: number, index: number): Promise<void> {
  await db
    .delete(fileUploadChunks)
    .where(and(eq(fileUploadChunks.sessionId, sessionId), eq(fileUploadChunks.chunkIndex, index)));
}

/** open → completing, so two completes cannot both assemble the file. */
export async function claimForCompletion(db: Db, id: number, expiresAt: Date): Promise<boolean> {
  const rows = await db
    .update(s)
    .set({ status: 'completing', expiresAt })
    .where(and(eq(s.id, id), eq(s.status, 'open')))
    .returning({ id: s.id });
  return rows.length > 0;
}

export async function reopen(db: Db, id: number): Promise<void> {
  await db
    .update(s)
    .set({ status: 'open' })
    .where(and(eq(s.id, id), eq(s.status, 'completing')));
}

/** completing → completed with the file; false when the session vanished meanwhile (expired). */
export async function markCompleted(db: Db, id: number, fileId: number): Promise<boolean> {
  const rows = await db
    .update(s)
    .set({ status: 'completed', fileId })
    .where(and(eq(s.id, id), eq(s.status, 'completing')))
    .returning({ id: s.id });
  if (rows.length === 0) return false;
  await db.delete(fileUploadChunks).where(eq(fileUploadChunks.sessionId, id));
  return true;
}

/**
 * Deletes a session (its chunk rows cascade) and answers the chunk indexes it had, so the
 * caller can delete their objects. `notStatus: 'completing'` spares a session a complete is assembling.
 * Reads then deletes: the caller runs it in one transaction.
 */
export async function deleteSession(
  tx: Db,
  id: number,
  cond: { expiredBefore?: Date; notStatus?: SessionRow['status'] } = {},
): Promise<{ session: SessionRow; chunks: number[] } | null> {
  const chunks = await receivedChunks(tx, id);
  const rows = await tx
    .delete(s)
    .where(
      and(
        eq(s.id, id),
        cond.expiredBefore ? lt(s.expiresAt, cond.expiredBefore) : undefined,
        cond.notStatus ? ne(s.status, cond.notStatus) : undefined,
      ),
    )
    .returning();
  const session = rows[0];
  return session ? { session, chunks } : null;
}

export async function expiredSessionIds(db: Db, now: Date, limit: number): Promise<number[]> {
  const rows = await db.select({ id: s.id }).from(s).where(lt(s.expiresAt, now)).orderBy(s.expiresAt).limit(limit);
  return rows.map((r) => r.id);
}

/** The ids among `ids` whose session exists and has not expired at `now`. */
export async function liveSessionIds(db: Db, ids: number[], now: Date): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: s.id })
    .from(s)
    .where(and(inArray(s.id, ids), gt(s.expiresAt, now)));
  return new Set(rows.map((r) => r.id));
}
