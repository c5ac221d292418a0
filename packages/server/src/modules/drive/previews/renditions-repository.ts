import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { driveNodeRenditions } from '../tables.ts';

export type RenditionRow = typeof driveNodeRenditions.$inferSelect;
export type RenditionKind = RenditionRow['kind'];

const renditionRows = scoped(driveNodeRenditions);

/** ready, with a file, and of the version it was made from (a stale one never shows) */
const ready = (versionId: number) =>
  and(
    eq(driveNodeRenditions.status, 'ready'),
    isNotNull(driveNodeRenditions.fileId),
    eq(driveNodeRenditions.versionId, versionId),
  );

/** The ready renditions of a node's version. */
export function readyRenditions(db: Db, scope: Pick<Scope, 'tenantId'>, nodeId: number, versionId: number) {
  return renditionRows.findMany(db, scope, and(eq(driveNodeRenditions.nodeId, nodeId), ready(versionId)));
}

/** The kinds of ready renditions of each node's current version, in one statement (a listing page). */
export async function readyRenditionKinds(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  nodes: Array<{ id: number; currentVersionId: number }>,
): Promise<Array<{ nodeId: number; kind: RenditionKind }>> {
  if (nodes.length === 0) return [];
  const pairs = sql`(${driveNodeRenditions.nodeId}, ${driveNodeRenditions.versionId}) in (select * from unnest(${intArray(
    nodes.map((n) => n.id),
  )}, ${intArray(nodes.map((n) => n.currentVersionId))}))`;
  return db
    .select({ nodeId: driveNodeRenditions.nodeId, kind: driveNodeRenditions.kind })
    .from(driveNodeRenditions)
    .where(
      renditionRows.where(
        scope,
        and(pairs, eq(driveNodeRenditions.status, 'ready'), isNotNull(driveNodeRenditions.fileId)),
      ),
    );
}
