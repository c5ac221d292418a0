import { and, eq, isNull, sql } from 'drizzle-orm';
import { sha256 } from '../../../platform/crypto/digest.ts';
import type { Db } from '../../../platform/db/client.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { oauthCodes } from './tables.ts';

/** Queries of authorization codes; a code is looked up by its SHA-256, never stored in clear. */
export type CodeRecord = typeof oauthCodes.$inferSelect;
export type NewCode = typeof oauthCodes.$inferInsert;

export async function insertCode(tx: Db, row: NewCode): Promise<void> {
  await tx.insert(oauthCodes).values({ ...row, tenantId: platformKey(row.tenantId) });
}

/** A code by its value, whatever its state (null when unknown). */
export async function findCode(db: Db, code: string): Promise<CodeRecord | null> {
  const c = oauthCodes;
  const [row] = await db
    .select()
    .from(c)
    .where(eq(c.codeHash, sha256(code)))
    .limit(1);
  return row ?? null;
}

/** Marks the code used if it still is not: the single-use guarantee, one of two concurrent redemptions claims it. */
export async function claimCode(tx: Db, id: number, now: Date): Promise<boolean> {
  const c = oauthCodes;
  const claimed = await tx
    .update(c)
    .set({ usedAt: now })
    .where(and(eq(c.id, id), isNull(c.usedAt)))
    .returning({ id: c.id });
  return claimed.length > 0;
}

/** Closes the open codes one user granted one application. */
export async function closeUserAppCodes(tx: Db, userId: number, appId: number, now: Date): Promise<void> {
  await tx
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.userId, userId), eq(oauthCodes.appId, appId), isNull(oauthCodes.usedAt)));
}

export async function deleteAppCodes(tx: Db, appId: number): Promise<void> {
  await tx.delete(oauthCodes).where(eq(oauthCodes.appId, appId));
}

export async function deleteCodesExpiredBefore(db: Db, cutoff: Date): Promise<number> {
  const rows = await db
    .delete(oauthCodes)
    .where(sql`${oauthCodes.expiresAt} < ${cutoff}`)
    .returning({ id: oauthCodes.id });
  return rows.length;
}
