import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { driveUploadBindings } from '../tables.ts';

/**
 * Chunked drive uploads bound to their target (a folder, or a file's next version) with the
 * quota they reserved. A binding is deleted exactly once — by complete, abort or the expiry
 * task — with a conditional DELETE … RETURNING: whoever gets the row gives the reservation back.
 */
type TenantScope = Pick<Scope, 'tenantId'>;
export type BindingRow = typeof driveUploadBindings.$inferSelect;
const b = driveUploadBindings;

export const bindingRows = scoped(driveUploadBindings);

export const insertBinding = (tx: Db, scope: TenantScope, row: Omit<typeof b.$inferInsert, 'id' | 'tenantId'>) =>
  bindingRows.insert(tx, scope, row);

/** The caller's binding of a files upload session. */
export async function findBinding(
  db: Db,
  scope: TenantScope,
  userId: number,
  sessionId: number,
): Promise<BindingRow | null> {
  const [row] = await db
    .select()
    .from(b)
    .where(bindingRows.where(scope, and(eq(b.uploadSessionId, sessionId), eq(b.userId, userId))));
  return row ?? null;
}

/** Deletes the binding; null when another request or the expiry task took it first. */
export async function claimBinding(tx: Db, id: number): Promise<BindingRow | null> {
  const [row] = await tx.delete(b).where(eq(b.id, id)).returning();
  return row ?? null;
}

/** Bindings (any tenant) after id `afterId`, by id: the expiry task's pages. */
export const bindingsAfter = (db: Db, afterId: number, limit: number) =>
  db.select().from(b).where(gt(b.id, afterId)).orderBy(asc(b.id)).limit(limit);

/** Deletes these bindings unless already gone; answers the ones this call deleted. */
export const claimBindings = (tx: Db, ids: number[]) =>
  ids.length ? tx.delete(b).where(inArray(b.id, ids)).returning() : Promise.resolve([] as BindingRow[]);
