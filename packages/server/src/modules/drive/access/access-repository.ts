import { and, eq, gt, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../../platform/db/client.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import {
  type DriveRole,
  driveNodePermissions,
  driveNodes,
  driveSpaceMembers,
  driveSpaces,
  type SubjectType,
} from '../tables.ts';

/**
 * The queries of effective roles (spec §5.5). A caller is a set of subjects: a user id, its
 * department and the department's ancestors (a grant to a department reaches its
 * sub-departments' members), roles and user groups. `visibleNodes` is the SQL form of the rule
 * the access service computes node by node; the randomized test keeps them in agreement.
 */
export type SubjectSet = { userIds: number[]; departmentIds: number[]; roleIds: number[]; groupIds: number[] };

type SubjectColumns = { subjectType: PgColumn; subjectId: PgColumn };
const SUBJECT_LISTS = [
  ['user', 'userIds'],
  ['department', 'departmentIds'],
  ['role', 'roleIds'],
  ['group', 'groupIds'],
] as const satisfies readonly (readonly [SubjectType, keyof SubjectSet])[];

/** The one form of "the row's subject is one of the caller's": per subject type, its id in an int[] (null: none). */
function matchOf(t: SubjectColumns, ids: (list: keyof SubjectSet) => SQL | null): SQL {
  const parts = SUBJECT_LISTS.flatMap(([type, list]) => {
    const a = ids(list);
    return a ? [sql`(${t.subjectType} = ${type} and ${t.subjectId} = any(${a}))`] : [];
  });
  return parts.length ? (or(...parts) as SQL) : sql`false`;
}

/** Rows of a table whose (subject_type, subject_id) is one of the caller's subjects. */
export const subjectMatch = (t: SubjectColumns, s: SubjectSet): SQL =>
  matchOf(t, (list) => (s[list].length ? intArray(s[list]) : null));

/** `subjectMatch` with the caller's subjects as a prepared statement's placeholders (named as SubjectSet's lists). */
const placeholderMatch = (t: SubjectColumns): SQL => matchOf(t, (list) => sql`${sql.placeholder(list)}::int[]`);

/** SQL: a grant not expired at `now`. */
export const live = (now: Date) =>
  or(isNull(driveNodePermissions.expiresAt), gt(driveNodePermissions.expiresAt, now)) as SQL;

/**
 * In one round trip, what a role is computed from besides the space row itself: the caller's
 * member rows of the space (unless `members` is false: personal spaces have none) and the
 * caller's grants on the given nodes (a node's acl chain), expired ones included (the explanation
 * shows them).
 */
export async function sourceRows(db: Db, spaceId: number, members: boolean, chain: number[], s: SubjectSet) {
  const m = driveSpaceMembers;
  const g = driveNodePermissions;
  const memberRows = db
    .select({
      kind: sql<'member' | 'grant'>`'member'`.as('kind'),
      subjectType: m.subjectType,
      subjectId: m.subjectId,
      role: m.role,
      nodeId: sql<number | null>`null::int`.as('node_id'),
      expiresAt: sql<string | null>`null::timestamptz`.as('expires_at'),
    })
    .from(m)
    .where(and(eq(m.spaceId, spaceId), members ? subjectMatch(m, s) : sql`false`));
  const grantRows = db
    .select({
      kind: sql<'member' | 'grant'>`'grant'`.as('kind'),
      subjectType: g.subjectType,
      subjectId: g.subjectId,
      role: g.role,
      nodeId: sql<number | null>`${g.nodeId}`.as('node_id'),
      expiresAt: sql<string | null>`${g.expiresAt}`.as('expires_at'),
    })
    .from(g)
    .where(and(sql`${g.nodeId} = any(${intArray(chain)})`, subjectMatch(g, s)));
  const rows = await memberRows.unionAll(grantRows);
  return rows.map((r) => ({ ...r, expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt) }));
}

type SourceRow = Awaited<ReturnType<typeof sourceRows>>[number];

/**
 * The gate's one statement (prepared once per connection, as PostgreSQL plans it once): a node,
 * its space, and the caller's member rows of the space (none in personal spaces) and grants along
 * the node's acl chain. Placeholders: nodeId, tenantId, userIds, departmentIds, roleIds, groupIds.
 */
export function prepareGate(db: Db) {
  const m = driveSpaceMembers;
  const g = driveNodePermissions;
  const sources = sql<
    {
      kind: 'member' | 'grant';
      subjectType: SubjectType;
      subjectId: number;
      role: DriveRole;
      nodeId: number | null;
      expiresAt: string | null;
    }[]
  >`(
    select coalesce(json_agg(x), '[]'::json) from (
      select 'member' as "kind", ${m.subjectType} as "subjectType", ${m.subjectId} as "subjectId", ${m.role} as "role",
        null::int as "nodeId", null::timestamptz as "expiresAt"
      from ${m} where ${m.spaceId} = ${driveSpaces.id} and ${driveSpaces.type} <> 'personal' and ${placeholderMatch(m)}
      union all
      select 'grant', ${g.subjectType}, ${g.subjectId}, ${g.role}, ${g.nodeId}, ${g.expiresAt}
      from ${g} where ${g.nodeId} = any(${driveNodes.aclChainIds}) and ${placeholderMatch(g)}
    ) x)`;
  return db
    .select({ node: driveNodes, space: driveSpaces, sources })
    .from(driveNodes)
    .innerJoin(driveSpaces, eq(driveSpaces.id, driveNodes.spaceId))
    .where(
      and(
        eq(driveNodes.id, sql.placeholder('nodeId')),
        sql`${driveNodes.tenantId} = ${sql.placeholder('tenantId')}::int`,
      ),
    )
    .prepare('drive_gate');
}

export type Gate = ReturnType<typeof prepareGate>;

/** A node, its space and the caller's source rows, or null (not found in the tenant). */
export async function gateRows(gate: Gate, tenantId: number | null, nodeId: number, s: SubjectSet) {
  const [row] = await gate.execute({ nodeId, tenantId: platformKey(tenantId), ...s });
  if (!row) return null;
  const rows: SourceRow[] = row.sources.map((r) => ({
    ...r,
    expiresAt: r.expiresAt === null ? null : new Date(r.expiresAt),
  }));
  return { node: row.node, space: row.space, rows };
}

/** SQL: a grant's role as its rank (1 viewer … 4 manager). */
export const RANK = sql`array_position(array['viewer','downloader','editor','manager']::text[], ${driveNodePermissions.role})`;

/**
 * SQL: the caller's rank (0–4) on each `drive_nodes` row of the query, given the rank of its
 * space role (computed once per space): the space role where `acl_open`, and the best live grant
 * along `acl_chain_ids`.
 */
export function effectiveRankSql(s: SubjectSet, spaceRank: number, now: Date): SQL<number> {
  const grants = sql`(select max(${RANK}) from ${driveNodePermissions}
    where ${driveNodePermissions.nodeId} = any(${driveNodes.aclChainIds}) and ${subjectMatch(driveNodePermissions, s)} and ${live(now)})`;
  if (spaceRank >= 4) return sql<number>`4`;
  return sql<number>`greatest(case when ${driveNodes.aclOpen} then ${spaceRank} else 0 end, coalesce(${grants}, 0))`;
}

/** SQL: the `drive_nodes` rows the caller may at least browse. */
export function visibleNodes(s: SubjectSet, spaceRank: number, now: Date): SQL {
  if (spaceRank >= 4) return sql`true`;
  const granted = sql`exists (select 1 from ${driveNodePermissions}
    where ${driveNodePermissions.nodeId} = any(${driveNodes.aclChainIds}) and ${subjectMatch(driveNodePermissions, s)} and ${live(now)})`;
  return spaceRank > 0 ? (or(driveNodes.aclOpen, granted) as SQL) : granted;
}

/**
 * The caller's rank (0–4) on every node of a space (any state; `extra` narrows the rows): the
 * SQL form read back whole, for listings that show each node's role and for the randomized test
 * that holds it to the resolver.
 */
export const rolesOfNodes = (db: Db, s: SubjectSet, spaceRank: number, now: Date, spaceId: number, extra?: SQL) =>
  db
    .select({ id: driveNodes.id, rank: effectiveRankSql(s, spaceRank, now).mapWith(Number) })
    .from(driveNodes)
    .where(and(eq(driveNodes.spaceId, spaceId), extra));
