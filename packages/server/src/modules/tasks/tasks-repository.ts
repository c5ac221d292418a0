import { and, asc, desc, eq, inArray, isNotNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { asyncTasks, type TaskRow, type TaskStatus } from './tables.ts';

/**
 * Queries of the task center. Every read and write goes through the tenant scope; status moves
 * only by conditional updates (`… WHERE status = … RETURNING`), so a repeat or a lost race
 * changes nothing and answers null.
 */
export const tasks = scoped(asyncTasks);
type TenantScope = Pick<Scope, 'tenantId'>;

const mine = (ownerUserId: number, id?: number): SQL | undefined =>
  and(eq(asyncTasks.ownerUserId, ownerUserId), id === undefined ? undefined : eq(asyncTasks.id, id));

export function insertTask(
  db: Db,
  scope: TenantScope,
  values: { ownerUserId: number; kind: string; params: Record<string, unknown>; createdAt: Date },
) {
  return tasks.insert(db, scope, values);
}

export async function findOwned(db: Db, scope: TenantScope, ownerUserId: number, id: number) {
  const [row] = await db
    .select()
    .from(asyncTasks)
    .where(tasks.where(scope, mine(ownerUserId, id)))
    .limit(1);
  return row ?? null;
}

export function pageOwned(
  db: Db,
  scope: TenantScope,
  ownerUserId: number,
  q: PageRequest & { status?: TaskStatus; kind?: string },
) {
  const filter = and(
    mine(ownerUserId),
    q.status ? eq(asyncTasks.status, q.status) : undefined,
    q.kind ? eq(asyncTasks.kind, q.kind) : undefined,
  );
  return tasks.page(db, scope, q, filter, desc(asyncTasks.id));
}

async function transition(db: Db, scope: TenantScope, id: number, set: Partial<TaskRow>, when: SQL) {
  const [row] = await db
    .update(asyncTasks)
    .set(set)
    .where(tasks.where(scope, and(eq(asyncTasks.id, id), when)))
    .returning();
  return row ?? null;
}

/**
 * queued → running, unless a cancel was asked. `retry`: a later delivery of the same job (the
 * previous worker died or failed) may take a task that is still `running` over and start again.
 */
export function claim(db: Db, scope: TenantScope, id: number, now: Date, retry: boolean) {
  const from: TaskStatus[] = retry ? ['queued', 'running'] : ['queued'];
  return transition(
    db,
    scope,
    id,
    { status: 'running', startedAt: now, progress: 0, error: null },
    and(inArray(asyncTasks.status, from), eq(asyncTasks.cancelRequested, false)) as SQL,
  );
}

export async function raiseProgress(db: Db, scope: TenantScope, id: number, pct: number) {
  await transition(
    db,
    scope,
    id,
    { progress: pct },
    and(eq(asyncTasks.status, 'running'), lt(asyncTasks.progress, pct)) as SQL,
  );
}

export async function cancelRequested(db: Db, scope: TenantScope, id: number): Promise<boolean> {
  const [row] = await db
    .select({ c: asyncTasks.cancelRequested })
    .from(asyncTasks)
    .where(tasks.where(scope, eq(asyncTasks.id, id)));
  return row?.c ?? true;
}

/** running → succeeded with its result, unless a cancel was asked meanwhile. */
export function succeed(
  db: Db,
  scope: TenantScope,
  id: number,
  v: { resultFileId: number | null; resultExpiresAt: Date | null; now: Date },
) {
  return transition(
    db,
    scope,
    id,
    {
      status: 'succeeded',
      progress: 100,
      finishedAt: v.now,
      resultFileId: v.resultFileId,
      resultExpiresAt: v.resultExpiresAt,
    },
    and(eq(asyncTasks.status, 'running'), eq(asyncTasks.cancelRequested, false)) as SQL,
  );
}

/** running → queued, to run again later (a dependency outage): `error` says why it waits. */
export function requeue(db: Db, scope: TenantScope, id: number, error: string) {
  return transition(
    db,
    scope,
    id,
    { status: 'queued', progress: 0, startedAt: null, error },
    and(eq(asyncTasks.status, 'running'), eq(asyncTasks.cancelRequested, false)) as SQL,
  );
}

export function fail(db: Db, scope: TenantScope, id: number, error: string, now: Date) {
  return transition(db, scope, id, { status: 'failed', error, finishedAt: now }, eq(asyncTasks.status, 'running'));
}

/** running → cancelled (the worker noticed the owner's request). */
export function stopCancelled(db: Db, scope: TenantScope, id: number, now: Date) {
  return transition(db, scope, id, { status: 'cancelled', finishedAt: now }, eq(asyncTasks.status, 'running'));
}

/**
 * The owner's cancel: flags a queued or running task; a queued one is cancelled at once
 * (queued → cancelled), a running one stops at its next check. Null when already final.
 */
export async function requestCancel(db: Db, scope: TenantScope, ownerUserId: number, id: number, now: Date) {
  const [row] = await db
    .update(asyncTasks)
    .set({
      cancelRequested: true,
      status: sql`case when ${asyncTasks.status} = 'queued' then 'cancelled' else ${asyncTasks.status} end`,
      finishedAt: sql`case when ${asyncTasks.status} = 'queued' then ${now.toISOString()}::timestamptz else ${asyncTasks.finishedAt} end`,
    })
    .where(tasks.where(scope, and(mine(ownerUserId, id), inArray(asyncTasks.status, ['queued', 'running']))))
    .returning();
  return row ?? null;
}

/** Results past their expiry that still hold their file, oldest first (all tenants: a system task). */
export function expiredResults(db: Db, now: Date, limit: number) {
  return db
    .select({ id: asyncTasks.id, tenantId: asyncTasks.tenantId, resultFileId: asyncTasks.resultFileId })
    .from(asyncTasks)
    .where(and(isNotNull(asyncTasks.resultFileId), lte(asyncTasks.resultExpiresAt, now)))
    .orderBy(asc(asyncTasks.resultExpiresAt))
    .limit(limit);
}

/** Detaches the result file; false when another sweep did it first. */
export async function detachResult(db: Db, scope: TenantScope, id: number, fileId: number): Promise<boolean> {
  const row = await transition(db, scope, id, { resultFileId: null }, eq(asyncTasks.resultFileId, fileId));
  return row !== null;
}
