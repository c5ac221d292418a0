import { and, asc, count, desc, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Page, PageRequest } from '../../../platform/db/scoped.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import {
  effectiveRankSql,
  live,
  RANK,
  type SubjectSet,
  subjectMatch,
  visibleNodes,
} from '../access/access-repository.ts';
import { spaceRows } from '../spaces/space-repository.ts';
import {
  type DriveRole,
  driveNodePermissions,
  driveNodeStars,
  driveNodes,
  driveRecentAccess,
  driveSpaces,
} from '../tables.ts';

/**
 * The node listings: a folder's children, one node's view, the path above it, and the personal
 * views (starred, recent, shared with me). Each is one query for the page and one for the total,
 * with the caller's role computed per row in SQL (access-repository's form of §5.5), so a folder of
 * 10,000 nodes pages in milliseconds and a row the caller may not browse never leaves the database.
 * The two are awaited in turn: nodes-service runs a listing in one transaction, whose connection
 * takes one query at a time.
 */
type TenantScope = Pick<Scope, 'tenantId'>;

/**
 * For the rest of the transaction, no JIT compilation: the planner prices the per-row grant check
 * of every row (it cannot know that open rows skip it), so a 10,000-row folder crosses
 * `jit_above_cost` and would spend tens of milliseconds compiling a query that runs in a few.
 */
export async function withoutJit(tx: Db) {
  await tx.execute(sql`set local jit = off`);
}

/** The caller's access as SQL inputs: subjects, the rank of their space role in each space concerned, the time. */
export type ListingAccess = { set: SubjectSet; now: Date; spaceRanks: Map<number, number> };

export type ChildSort = 'name' | 'updatedAt' | 'size' | 'type';
export type SortOrder = 'asc' | 'desc';

/** SQL: the row is one the caller may browse (in one of the spaces of `a`). */
export function visibleIn(a: ListingAccess): SQL {
  const parts = [...a.spaceRanks].map(
    ([spaceId, rank]) => and(eq(driveNodes.spaceId, spaceId), visibleNodes(a.set, rank, a.now)) as SQL,
  );
  return parts.length ? (or(...parts) as SQL) : sql`false`;
}

/** SQL: the caller's rank (0–4) on the row. */
export function rankIn(a: ListingAccess): SQL<number> {
  const entries = [...a.spaceRanks];
  if (entries.length === 0) return sql<number>`0`;
  if (entries.length === 1) return effectiveRankSql(a.set, (entries[0] as [number, number])[1], a.now);
  const whens = entries.map(([spaceId, rank]) => sql`when ${spaceId} then ${effectiveRankSql(a.set, rank, a.now)}`);
  return sql<number>`(case ${driveNodes.spaceId} ${sql.join(whens, sql` `)} else 0 end)`;
}

/** The columns of a node's view for `userId`: the node, whether they starred it, their rank on it. */
const viewColumns = (userId: number, a: ListingAccess) => ({
  id: driveNodes.id,
  spaceId: driveNodes.spaceId,
  parentId: driveNodes.parentId,
  type: driveNodes.type,
  name: driveNodes.name,
  size: driveNodes.size,
  mime: driveNodes.mime,
  versionNo: driveNodes.versionNo,
  currentVersionId: driveNodes.currentVersionId,
  createdBy: driveNodes.createdBy,
  updatedBy: driveNodes.updatedBy,
  createdAt: driveNodes.createdAt,
  updatedAt: driveNodes.updatedAt,
  inheritPermissions: driveNodes.inheritPermissions,
  lockUserId: driveNodes.lockUserId,
  lockExpiresAt: driveNodes.lockExpiresAt,
  starred: sql<boolean>`exists (select 1 from ${driveNodeStars}
    where ${driveNodeStars.userId} = ${userId} and ${driveNodeStars.nodeId} = ${driveNodes.id})`,
  rank: sql<number>`${rankIn(a)}`.mapWith(Number),
});

export type NodeViewRow = {
  id: number;
  spaceId: number;
  parentId: number | null;
  type: 'folder' | 'file';
  name: string;
  size: number;
  mime: string | null;
  versionNo: number;
  currentVersionId: number | null;
  createdBy: number | null;
  updatedBy: number | null;
  createdAt: Date;
  updatedAt: Date;
  inheritPermissions: boolean;
  lockUserId: number | null;
  lockExpiresAt: Date | null;
  starred: boolean;
  rank: number;
};

/** Sort keys after "folders first"; the id breaks ties so pages never overlap. */
const SORT_KEYS: Record<ChildSort, SQL[]> = {
  name: [sql`lower(${driveNodes.name})`],
  updatedAt: [sql`${driveNodes.updatedAt}`],
  size: [sql`${driveNodes.size}`],
  // the type of a file is its extension, as file managers sort it
  type: [sql`lower(substring(${driveNodes.name} from '\\.([^.]*)$'))`, sql`lower(${driveNodes.name})`],
};

const live_ = isNull(driveNodes.deletedAt);

/**
 * A page of a folder's live children (`parentId` null: the space root) the caller may browse;
 * with a `parentId`, the caller's browse right on that folder is checked by the caller.
 */
export async function childrenPage(
  db: Db,
  scope: TenantScope,
  userId: number,
  a: ListingAccess,
  q: PageRequest & { spaceId: number; parentId: number | null; sort: ChildSort; order: SortOrder },
): Promise<Page<NodeViewRow>> {
  // Inside a folder the caller may browse, a child that inherits has at least the folder's role
  // (the same space role where the folder's is open, the folder's chain plus its own grants):
  // only children that break inheritance need the per-row check.
  const visible = q.parentId === null ? visibleIn(a) : or(eq(driveNodes.inheritPermissions, true), visibleIn(a));
  const where = and(
    tenantFilter(driveNodes, scope),
    eq(driveNodes.spaceId, q.spaceId),
    q.parentId === null ? isNull(driveNodes.parentId) : eq(driveNodes.parentId, q.parentId),
    live_,
    visible,
  );
  const dir = q.order === 'desc' ? desc : asc;
  const order = [sql`(${driveNodes.type} <> 'folder')`, ...SORT_KEYS[q.sort].map((k) => dir(k)), dir(driveNodes.id)];
  // the page's ids first, the view's per-row subqueries (role, star) then for those rows only
  const pageIds = db
    .select({ id: driveNodes.id })
    .from(driveNodes)
    .where(where)
    .orderBy(...order)
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const list = await db
    .select(viewColumns(userId, a))
    .from(driveNodes)
    .where(inArray(driveNodes.id, pageIds))
    .orderBy(...order);
  const totals = await db.select({ n: count() }).from(driveNodes).where(where);
  return { list: list as NodeViewRow[], total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/** The views of the given nodes (any state), in id order. */
export async function nodeViewRows(
  db: Db,
  scope: TenantScope,
  userId: number,
  a: ListingAccess,
  ids: number[],
): Promise<NodeViewRow[]> {
  if (ids.length === 0) return [];
  return (await db
    .select(viewColumns(userId, a))
    .from(driveNodes)
    .where(and(tenantFilter(driveNodes, scope), sql`${driveNodes.id} = any(${intArray(ids)})`))
    .orderBy(driveNodes.id)) as NodeViewRow[];
}

/** The given ancestors' names and whether the caller may browse each. */
export async function ancestorsOf(db: Db, scope: TenantScope, a: ListingAccess, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .select({ id: driveNodes.id, name: driveNodes.name, visible: sql<boolean>`${visibleIn(a)}` })
    .from(driveNodes)
    .where(and(tenantFilter(driveNodes, scope), sql`${driveNodes.id} = any(${intArray(ids)})`));
}

/** Whether any live grant in the space reaches the caller (a user without a space role may still browse there). */
export async function hasGrantInSpace(db: Db, scope: TenantScope, spaceId: number, set: SubjectSet, now: Date) {
  const rows = await db
    .select({ one: sql`1` })
    .from(driveNodePermissions)
    .where(
      and(
        tenantFilter(driveNodePermissions, scope),
        eq(driveNodePermissions.spaceId, spaceId),
        subjectMatch(driveNodePermissions, set),
        live(now),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** Spaces by id, of the caller's tenant. */
export const spacesByIds = (db: Db, scope: TenantScope, ids: number[]) =>
  ids.length ? spaceRows.findMany(db, scope, sql`${driveSpaces.id} = any(${intArray(ids)})`) : Promise.resolve([]);

// --- the personal views ---------------------------------------------------------------------

const starsOf = (scope: TenantScope, userId: number) =>
  and(tenantFilter(driveNodeStars, scope), eq(driveNodeStars.userId, userId), live_) as SQL;
const recentOf = (scope: TenantScope, userId: number) =>
  and(tenantFilter(driveRecentAccess, scope), eq(driveRecentAccess.userId, userId), live_) as SQL;

/** The spaces of a user's starred live nodes (their roles there make the page's SQL). */
export async function starredSpaceIds(db: Db, scope: TenantScope, userId: number): Promise<number[]> {
  const rows = await db
    .selectDistinct({ spaceId: driveNodes.spaceId })
    .from(driveNodeStars)
    .innerJoin(driveNodes, eq(driveNodes.id, driveNodeStars.nodeId))
    .where(starsOf(scope, userId));
  return rows.map((r) => r.spaceId);
}

/** The user's starred live nodes they may still browse, newest star first. */
export async function starredPage(db: Db, scope: TenantScope, userId: number, a: ListingAccess, p: PageRequest) {
  const where = and(starsOf(scope, userId), visibleIn(a));
  const list = await db
    .select({ ...viewColumns(userId, a), starredAt: driveNodeStars.createdAt })
    .from(driveNodeStars)
    .innerJoin(driveNodes, eq(driveNodes.id, driveNodeStars.nodeId))
    .where(where)
    .orderBy(desc(driveNodeStars.createdAt), desc(driveNodes.id))
    .limit(p.pageSize)
    .offset((p.page - 1) * p.pageSize);
  const totals = await db
    .select({ n: count() })
    .from(driveNodeStars)
    .innerJoin(driveNodes, eq(driveNodes.id, driveNodeStars.nodeId))
    .where(where);
  return { list: list as (NodeViewRow & { starredAt: Date })[], total: Number(totals[0]?.n ?? 0) };
}

/** The spaces of a user's recently opened live nodes. */
export async function recentSpaceIds(db: Db, scope: TenantScope, userId: number): Promise<number[]> {
  const rows = await db
    .selectDistinct({ spaceId: driveNodes.spaceId })
    .from(driveRecentAccess)
    .innerJoin(driveNodes, eq(driveNodes.id, driveRecentAccess.nodeId))
    .where(recentOf(scope, userId));
  return rows.map((r) => r.spaceId);
}

/** The user's recently opened live nodes they may still browse, latest first. */
export async function recentPage(db: Db, scope: TenantScope, userId: number, a: ListingAccess, p: PageRequest) {
  const where = and(recentOf(scope, userId), visibleIn(a));
  const list = await db
    .select({ ...viewColumns(userId, a), accessedAt: driveRecentAccess.accessedAt })
    .from(driveRecentAccess)
    .innerJoin(driveNodes, eq(driveNodes.id, driveRecentAccess.nodeId))
    .where(where)
    .orderBy(desc(driveRecentAccess.accessedAt), desc(driveNodes.id))
    .limit(p.pageSize)
    .offset((p.page - 1) * p.pageSize);
  const totals = await db
    .select({ n: count() })
    .from(driveRecentAccess)
    .innerJoin(driveNodes, eq(driveNodes.id, driveRecentAccess.nodeId))
    .where(where);
  return { list: list as (NodeViewRow & { accessedAt: Date })[], total: Number(totals[0]?.n ?? 0) };
}

/**
 * The best live grant of each node shared with the caller: to one of their subjects, by someone
 * else, on a live node outside the caller's own personal space.
 */
function sharedGrants(db: Db, scope: TenantScope, userId: number, set: SubjectSet, now: Date) {
  const p = driveNodePermissions;
  return db
    .selectDistinctOn([p.nodeId], {
      nodeId: p.nodeId,
      grantedRole: p.role,
      grantedBy: p.createdBy,
      grantedAt: p.createdAt,
    })
    .from(p)
    .innerJoin(driveNodes, eq(driveNodes.id, p.nodeId))
    .innerJoin(driveSpaces, eq(driveSpaces.id, driveNodes.spaceId))
    .where(
      and(
        tenantFilter(p, scope),
        subjectMatch(p, set),
        live(now),
        sql`${p.createdBy} is distinct from ${userId}`,
        live_,
        sql`not (${driveSpaces.type} = 'personal' and ${driveSpaces.ownerUserId} = ${userId})`,
      ),
    )
    .orderBy(p.nodeId, desc(RANK), desc(p.createdAt))
    .as('g');
}

/** The spaces of the nodes shared with the caller. */
export async function sharedSpaceIds(db: Db, scope: TenantScope, userId: number, set: SubjectSet, now: Date) {
  const g = sharedGrants(db, scope, userId, set, now);
  const rows = await db
    .selectDistinct({ spaceId: driveNodes.spaceId })
    .from(g)
    .innerJoin(driveNodes, eq(driveNodes.id, g.nodeId));
  return rows.map((r) => r.spaceId);
}

/** The nodes shared with the caller, each once with its best grant, newest grant first. */
export async function sharedPage(db: Db, scope: TenantScope, userId: number, a: ListingAccess, p: PageRequest) {
  const g = sharedGrants(db, scope, userId, a.set, a.now);
  const list = await db
    .select({ ...viewColumns(userId, a), grantedRole: g.grantedRole, grantedBy: g.grantedBy, grantedAt: g.grantedAt })
    .from(g)
    .innerJoin(driveNodes, eq(driveNodes.id, g.nodeId))
    .orderBy(desc(g.grantedAt), desc(driveNodes.id))
    .limit(p.pageSize)
    .offset((p.page - 1) * p.pageSize);
  const totals = await db.select({ n: count() }).from(g);
  return {
    list: list as (NodeViewRow & { grantedRole: DriveRole; grantedBy: number | null; grantedAt: Date })[],
    total: Number(totals[0]?.n ?? 0),
  };
}
