import { and, eq, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { driveNodePermissions } from '../tables.ts';

/** Direct grants (drive_node_permissions): a subject's role on a node and, unless broken, its subtree. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type GrantRow = typeof driveNodePermissions.$inferSelect;
export type NewGrant = Omit<typeof driveNodePermissions.$inferInsert, 'id' | 'tenantId'>;

export const grantRows = scoped(driveNodePermissions);

/** Every grant on the given nodes (a node's acl chain), any subject, expired ones included. */
export const grantsOnNodes = (db: Db, scope: TenantScope, nodeIds: number[]) =>
  nodeIds.length
    ? grantRows.findMany(
        db,
        scope,
        sql`${driveNodePermissions.nodeId} = any(${`{${nodeIds.join(',')}}`}::int[])`,
        driveNodePermissions.id,
      )
    : Promise.resolve([]);

/** A grant of the node (a grant of another node is not found). */
export async function findGrant(db: Db, scope: TenantScope, nodeId: number, grantId: number): Promise<GrantRow | null> {
  const [row] = await db
    .select()
    .from(driveNodePermissions)
    .where(grantRows.where(scope, and(eq(driveNodePermissions.id, grantId), eq(driveNodePermissions.nodeId, nodeId))))
    .for('update');
  return row ?? null;
}

/** A subject's own grant on the node, locked for the rest of the transaction. */
export async function lockSubjectGrant(
  tx: Db,
  scope: TenantScope,
  nodeId: number,
  subject: { type: GrantRow['subjectType']; id: number },
): Promise<GrantRow | null> {
  const [row] = await tx
    .select()
    .from(driveNodePermissions)
    .where(
      grantRows.where(
        scope,
        and(
          eq(driveNodePermissions.nodeId, nodeId),
          eq(driveNodePermissions.subjectType, subject.type),
          eq(driveNodePermissions.subjectId, subject.id),
        ),
      ),
    )
    .for('update');
  return row ?? null;
}

/** One grant per (node, subject): a second is a unique violation. */
export const insertGrant = (tx: Db, scope: TenantScope, row: NewGrant) => grantRows.insert(tx, scope, row);

export const updateGrant = (
  tx: Db,
  scope: TenantScope,
  id: number,
  patch: Partial<Pick<GrantRow, 'role' | 'expiresAt' | 'remindedAt'>>,
) => grantRows.update(tx, scope, id, patch);

export const deleteGrant = (tx: Db, scope: TenantScope, id: number) => grantRows.deleteMany(tx, scope, [id]);

/** Inserts grants, skipping subjects that already hold one on the node; answers those inserted. */
export async function insertGrantsIfAbsent(tx: Db, scope: TenantScope, rows: NewGrant[]): Promise<GrantRow[]> {
  if (rows.length === 0) return [];
  return tx
    .insert(driveNodePermissions)
    .values(rows.map((r) => ({ ...r, tenantId: platformKey(scope.tenantId) })))
    .onConflictDoNothing({
      target: [driveNodePermissions.nodeId, driveNodePermissions.subjectType, driveNodePermissions.subjectId],
    })
    .returning();
}
