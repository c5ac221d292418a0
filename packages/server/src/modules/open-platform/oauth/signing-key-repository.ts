import { and, desc, gt, isNull, or } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { oauthSigningKeys } from './tables.ts';

/** Queries of the id_token signing keys. */
export type NewSigningKey = typeof oauthSigningKeys.$inferInsert;

/** The one key not retired (a partial unique index keeps it one), or null before the first use. */
export async function findActiveKey(db: Db) {
  const k = oauthSigningKeys;
  const [row] = await db.select().from(k).where(isNull(k.retiredAt)).limit(1);
  return row ?? null;
}

/** A new active key, unless another one got there first (then nothing is written). */
export async function insertKeyUnlessActive(db: Db, row: NewSigningKey): Promise<void> {
  await db.insert(oauthSigningKeys).values(row).onConflictDoNothing();
}

/** Public JWKs of the active key and of keys retired after `retiredSince`, newest first. */
export async function publishedKeys(db: Db, retiredSince: Date) {
  const k = oauthSigningKeys;
  return db
    .select({ jwk: k.publicJwk })
    .from(k)
    .where(and(or(isNull(k.retiredAt), gt(k.retiredAt, retiredSince))))
    .orderBy(desc(k.id));
}
