import { and, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped, tenantFilter } from '../../../platform/db/scoped.ts';
import { contains } from '../../../platform/db/sql.ts';
import {
  type ErrorLevel,
  type ErrorType,
  errorEvents,
  errorGroupIdentities,
  errorGroups,
  type IssueStatus,
} from '../tables.ts';

/** Queries of issues (error_groups); every one goes through the tenant scope. */
export const groups = scoped(errorGroups);
type TenantScope = Pick<Scope, 'tenantId'>;
export type ErrorGroupRow = typeof errorGroups.$inferSelect;
export type ErrorGroupQuery = PageRequest & {
  status?: IssueStatus;
  type?: ErrorType;
  level?: ErrorLevel;
  keyword?: string;
  environment?: string;
  release?: string;
  sort?: 'lastSeenAt' | 'eventCount';
};

export function pageGroups(db: Db, scope: TenantScope, q: ErrorGroupQuery) {
  const conds: SQL[] = [];
  if (q.status) conds.push(eq(errorGroups.status, q.status));
  if (q.type) conds.push(eq(errorGroups.type, q.type));
  if (q.level) conds.push(eq(errorGroups.level, q.level));
  if (q.keyword) conds.push(contains(errorGroups.message, q.keyword));
  if (q.environment) conds.push(eq(errorGroups.environment, q.environment));
  if (q.release) {
    const release = q.release;
    conds.push(or(eq(errorGroups.firstRelease, release), eq(errorGroups.lastRelease, release)) as SQL);
  }
  const order =
    q.sort === 'eventCount'
      ? sql`${errorGroups.eventCount} DESC, ${errorGroups.lastSeenAt} DESC, ${errorGroups.id} DESC`
      : sql`${errorGroups.lastSeenAt} DESC, ${errorGroups.id} DESC`;
  return groups.page(db, scope, q, conds.length ? and(...conds) : undefined, order);
}

/**
 * Sets the status of issues (spec §3.4): `resolved` records resolvedAt (kept when the issue was
 * already resolved, so a repeat changes nothing), any other status clears it.
 */
export function statusChange(status: IssueStatus, now: Date) {
  const resolvedAt =
    status === 'resolved'
      ? sql`CASE WHEN ${errorGroups.status} = 'resolved' AND ${errorGroups.resolvedAt} IS NOT NULL THEN ${errorGroups.resolvedAt} ELSE ${now.toISOString()}::timestamptz END`
      : null;
  return { status, resolvedAt };
}

export async function updateGroup(
  db: Db,
  scope: TenantScope,
  id: number,
  input: { status?: IssueStatus; assigneeId?: number | null; level?: ErrorLevel; note?: string },
  now: Date,
): Promise<ErrorGroupRow | null> {
  const rows = await db
    .update(errorGroups)
    .set({
      ...(input.status ? statusChange(input.status, now) : {}),
      ...(input.assigneeId !== undefined ? { assigneeId: input.assigneeId } : {}),
      ...(input.level ? { level: input.level } : {}),
      ...(input.note !== undefined ? { note: input.note } : {}),
      updatedAt: now,
    })
    .where(groups.where(scope, eq(errorGroups.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** The ids among `ids` that are issues of the scope. */
export async function existingIds(db: Db, scope: TenantScope, ids: number[]): Promise<number[]> {
  const rows = await db
    .select({ id: errorGroups.id })
    .from(errorGroups)
    .where(groups.where(scope, inArray(errorGroups.id, ids)));
  return rows.map((r) => r.id);
}

export async function setStatusMany(db: Db, scope: TenantScope, ids: number[], status: IssueStatus, now: Date) {
  const rows = await db
    .update(errorGroups)
    .set({ ...statusChange(status, now), updatedAt: now })
    .where(groups.where(scope, inArray(errorGroups.id, ids)))
    .returning({ id: errorGroups.id });
  return rows.map((r) => r.id);
}

/** Deletes issues of the scope with their events and affected identities; answers the issue ids deleted. */
export async function deleteGroupsWithData(db: Db, scope: TenantScope, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .delete(errorGroups)
    .where(groups.where(scope, inArray(errorGroups.id, ids)))
    .returning({ id: errorGroups.id });
  const deleted = rows.map((r) => r.id);
  if (deleted.length === 0) return [];
  await db.delete(errorEvents).where(inArray(errorEvents.groupId, deleted));
  await db.delete(errorGroupIdentities).where(inArray(errorGroupIdentities.groupId, deleted));
  return deleted;
}

/** Latest affected identities of one issue. */
export function latestIdentities(db: Db, groupId: number, limit: number) {
  return db
    .select({
      identity: errorGroupIdentities.identity,
      firstSeenAt: errorGroupIdentities.firstSeenAt,
      lastSeenAt: errorGroupIdentities.lastSeenAt,
    })
    .from(errorGroupIdentities)
    .where(eq(errorGroupIdentities.groupId, groupId))
    .orderBy(desc(errorGroupIdentities.lastSeenAt), errorGroupIdentities.identity)
    .limit(limit);
}

export async function identityCount(db: Db, groupId: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(errorGroupIdentities)
    .where(eq(errorGroupIdentities.groupId, groupId));
  return row?.n ?? 0;
}

/** Distinct identities over every issue of the scope (one user hit by two issues counts once). */
export async function distinctIdentities(db: Db, scope: TenantScope): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(DISTINCT ${errorGroupIdentities.identity})`.mapWith(Number) })
    .from(errorGroupIdentities)
    .where(tenantFilter(errorGroupIdentities, scope));
  return row?.n ?? 0;
}

export function toIssueView(row: ErrorGroupRow) {
  const { tenantId: _tenant, normalizedMessage: _normalized, ...rest } = row;
  return rest;
}
