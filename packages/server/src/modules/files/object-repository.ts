import { and, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { fileObjects, managedFiles } from './tables.ts';

/**
 * Queries of `file_objects`, the stored objects behind managed files. Objects are not
 * tenant-owned (same content shares one object); tenants reach them only through their
 * managed files. Every state change is a conditional update (ARCHITECTURE §5).
 */
export type ObjectRow = typeof fileObjects.$inferSelect;

const sameConfig = (configId: number | null) => sql`coalesce(${fileObjects.storageConfigId}, 0) = ${configId ?? 0}`;

/**
 * +1 reference unless the object is being deleted; an orphaned object comes back to life.
 * The `gc_state <> 'deleting'` condition is re-checked on the locked row, so it cannot lose
 * a race against the collector's claim (spec §2.2: a deleting object is never referenced).
 */
export async function incrementRefs(db: Db, objectId: number): Promise<boolean> {
  const rows = await db
    .update(fileObjects)
    .set({ refCount: sql`${fileObjects.refCount} + 1`, gcState: 'live', orphanedAt: null })
    .where(and(eq(fileObjects.id, objectId), ne(fileObjects.gcState, 'deleting')))
    .returning({ id: fileObjects.id });
  return rows.length > 0;
}

/** −1 reference; at 0 the object becomes orphaned from `now`. */
export async function decrementRefs(db: Db, objectId: number, now: Date): Promise<void> {
  const remaining = sql`${fileObjects.refCount} - 1`;
  await db
    .update(fileObjects)
    .set({
      refCount: remaining,
      gcState: sql`case when ${remaining} = 0 then 'orphaned' else ${fileObjects.gcState} end`,
      orphanedAt: sql`case when ${remaining} = 0 then ${now.toISOString()}::timestamptz else ${fileObjects.orphanedAt} end`,
    })
    .where(eq(fileObjects.id, objectId));
}

/** The object holding this content in this storage configuration, unless it is being deleted. */
export async function findByContent(db: Db, configId: number | null, sha256: string): Promise<ObjectRow | null> {
  const rows = await db
    .select()
    .from(fileObjects)
    .where(and(sameConfig(configId), eq(fileObjects.sha256, sha256), ne(fileObjects.gcState, 'deleting')))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertObject(
  db: Db,
  values: { storageConfigId: number | null; sha256: string; size: number; storageKey: string },
): Promise<ObjectRow> {
  const [row] = await db
    .insert(fileObjects)
    .values({ ...values, refCount: 1, gcState: 'live' })
    .returning();
  if (!row) throw new Error('file_objects insert returned nothing');
  return row;
}

/**
 * Claims up to `limit` objects orphaned before `cutoff` (and leftovers of an interrupted run
 * still in `deleting`): they become `deleting` and can never be referenced again. Rows another
 * transaction holds (an addRef in flight) are skipped, not waited for.
 */
export async function claimOrphans(db: Db, cutoff: Date, limit: number): Promise<ObjectRow[]> {
  const due = and(
    inArray(fileObjects.gcState, ['orphaned', 'deleting']),
    eq(fileObjects.refCount, 0),
    lt(fileObjects.orphanedAt, cutoff),
  );
  const candidates = db
    .select({ id: fileObjects.id })
    .from(fileObjects)
    .where(due)
    .orderBy(fileObjects.orphanedAt)
    .limit(limit)
    .for('update', { skipLocked: true });
  return db
    .update(fileObjects)
    .set({ gcState: 'deleting' })
    .where(and(inArray(fileObjects.id, candidates), due))
    .returning();
}

/** Removes a collected object's rows: its (unreferenced) managed files, then the object; in the caller's transaction. */
export async function deleteObjectRows(tx: Db, objectId: number): Promise<void> {
  // No file_refs row can point at these files: ref_count is 0 and a deleting object refuses
  // new references (a stray one would make this fail on its foreign key, not vanish).
  await tx.delete(managedFiles).where(eq(managedFiles.objectId, objectId));
  await tx.delete(fileObjects).where(and(eq(fileObjects.id, objectId), eq(fileObjects.gcState, 'deleting')));
}
