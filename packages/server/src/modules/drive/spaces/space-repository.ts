import { and, eq, isNotNull, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type Page, type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { intArray } from '../../../platform/db/sql.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { type SubjectSet, subjectMatch } from '../access/access-repository.ts';
import { driveLegalHolds, driveNodes, driveSpaceMembers, driveSpaces, type SpaceType } from '../tables.ts';

/** Queries of spaces and their usage counters. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type SpaceRow = typeof driveSpaces.$inferSelect;

export const spaceRows = scoped(driveSpaces);

export const findSpace = (db: Db, scope: TenantScope, id: number) => spaceRows.findById(db, scope, id);

/** The space row, locked for the rest of the transaction (usage changes, ownership). */
export async function lockSpace(tx: Db, scope: TenantScope, id: number): Promise<SpaceRow | null> {
  const [row] = await tx
    .select()
    .from(driveSpaces)
    .where(spaceRows.where(scope, eq(driveSpaces.id, id)))
    .for('update');
  return row ?? null;
}

export type NewSpace = Omit<typeof driveSpaces.$inferInsert, 'id' | 'tenantId'>;

export const insertSpace = (tx: Db, scope: TenantScope, row: NewSpace) => spaceRows.insert(tx, scope, row);

/**
 * Inserts a space unless one of the same key exists (a user's personal space, a department's
 * space: unique indexes). Answers the new row, or null when another request created it first.
 */
export async function insertSpaceIfAbsent(tx: Db, scope: TenantScope, row: NewSpace): Promise<SpaceRow | null> {
  const [inserted] = await tx
    .insert(driveSpaces)
    .values({ ...row, tenantId: platformKey(scope.tenantId) })
    .onConflictDoNothing()
    .returning();
  return inserted ?? null;
}

export async function findPersonalSpace(db: Db, scope: TenantScope, userId: number): Promise<SpaceRow | null> {
  const [row] = await db
    .select()
    .from(driveSpaces)
    .where(spaceRows.where(scope, and(eq(driveSpaces.type, 'personal'), eq(driveSpaces.ownerUserId, userId))));
  return row ?? null;
}

export async function findDepartmentSpace(db: Db, scope: TenantScope, departmentId: number): Promise<SpaceRow | null> {
  const [row] = await db
    .select()
    .from(driveSpaces)
    .where(spaceRows.where(scope, and(eq(driveSpaces.type, 'department'), eq(driveSpaces.departmentId, departmentId))));
  return row ?? null;
}

/** The personal space of a user, created on first access (one per user, by unique index). */
export async function ensurePersonalSpace(db: Db, scope: TenantScope, userId: number, name: string): Promise<SpaceRow> {
  await insertSpaceIfAbsent(db, scope, { type: 'personal', name, ownerUserId: userId, createdBy: userId });
  const row = await findPersonalSpace(db, scope, userId);
  if (!row) throw new Error(`personal space of user ${userId} missing after insert`);
  return row;
}

/** Who the caller is for "my spaces": the subjects, the user and the departments they head. */
export type SpaceViewer = { set: SubjectSet; userId: number; headOf: number[] };

const anyOf = (col: typeof driveSpaces.departmentId, ids: number[]) =>
  ids.length ? sql`${col} = any(${intArray(ids)})` : sql`false`;

/**
 * SQL: the spaces where the viewer holds a space role, the table of spec §5.5 (the access
 * service's `spaceSources`, row by row): the owner of a personal or team space; every signed-in
 * user in a team space with a default member role; the head of a department space, and the
 * members of the department or its sub-departments when it has a default member role; a member
 * row matching one of the viewer's subjects (team and department spaces).
 */
export function spacesWithRole(v: SpaceViewer): SQL {
  const t = driveSpaces;
  const member = sql`exists (select 1 from ${driveSpaceMembers} where ${driveSpaceMembers.spaceId} = ${t.id} and ${subjectMatch(driveSpaceMembers, v.set)})`;
  return or(
    and(ne(t.type, 'department'), eq(t.ownerUserId, v.userId)),
    and(eq(t.type, 'team'), or(isNotNull(t.defaultMemberRole), member)),
    and(
      eq(t.type, 'department'),
      or(
        anyOf(t.departmentId, v.headOf),
        and(isNotNull(t.defaultMemberRole), anyOf(t.departmentId, v.set.departmentIds)),
        member,
      ),
    ),
  ) as SQL;
}

export type SpaceFilter = {
  type?: SpaceType;
  includeArchived?: boolean;
  /** only the spaces where this viewer holds a role; absent: every space of the tenant (administrators) */
  viewer?: SpaceViewer;
};

/** A page of spaces: personal first, then department, then team spaces, by name. */
export function pageSpaces(db: Db, scope: TenantScope, page: PageRequest, f: SpaceFilter): Promise<Page<SpaceRow>> {
  const conds: SQL[] = [];
  if (f.type) conds.push(eq(driveSpaces.type, f.type));
  if (!f.includeArchived) conds.push(isNull(driveSpaces.archivedAt));
  if (f.viewer) conds.push(spacesWithRole(f.viewer));
  const order = sql`case ${driveSpaces.type} when 'personal' then 0 when 'department' then 1 else 2 end, lower(${driveSpaces.name}), ${driveSpaces.id}`;
  return spaceRows.page(db, scope, page, conds.length ? and(...conds) : undefined, order);
}

export const updateSpace = (tx: Db, scope: TenantScope, id: number, patch: Partial<NewSpace>) =>
  spaceRows.update(tx, scope, id, patch);

/** Archives or unarchives a space; null when it already was so (or the space is gone). */
export async function setArchived(
  tx: Db,
  scope: TenantScope,
  id: number,
  archived: boolean,
  now: Date,
): Promise<SpaceRow | null> {
  const [row] = await tx
    .update(driveSpaces)
    .set({ archivedAt: archived ? now : null, updatedAt: now })
    .where(
      spaceRows.where(
        scope,
        and(eq(driveSpaces.id, id), archived ? isNull(driveSpaces.archivedAt) : isNotNull(driveSpaces.archivedAt)),
      ),
    )
    .returning();
  return row ?? null;
}

/** Deletes a space; its nodes (with versions, grants, stars), members and upload bindings cascade. */
export async function deleteSpace(tx: Db, scope: TenantScope, id: number): Promise<boolean> {
  return (await spaceRows.deleteMany(tx, scope, [id])).length > 0;
}

/** Every node of a space, in any state (live, in the recycle bin). */
export async function nodeIdsOfSpace(tx: Db, spaceId: number): Promise<number[]> {
  const rows = await tx.select({ id: driveNodes.id }).from(driveNodes).where(eq(driveNodes.spaceId, spaceId));
  return rows.map((r) => r.id);
}

/** A node of the space under an active legal hold, if any (joined through the node: holds follow a moved node). */
export async function heldNodeOfSpace(tx: Db, spaceId: number): Promise<{ nodeId: number; name: string } | null> {
  const [row] = await tx
    .select({ nodeId: driveNodes.id, name: driveNodes.name })
    .from(driveLegalHolds)
    .innerJoin(driveNodes, eq(driveNodes.id, driveLegalHolds.nodeId))
    .where(and(eq(driveNodes.spaceId, spaceId), eq(driveLegalHolds.active, true)))
    .limit(1);
  return row ?? null;
}

/**
 * Charges `bytes` to a space when they fit its quota (`quotaBytes` 0 = unlimited), counting what
 * chunked uploads reserved: one conditional update, so two uploads racing for the last bytes
 * cannot both pass. `reserved` true takes them from the reservation instead (already checked).
 * Answers the new usage, or null when they do not fit.
 */
export async function chargeUsage(
  tx: Db,
  spaceId: number,
  bytes: number,
  quotaBytes: number,
  opts: { column?: 'used' | 'reserved'; fromReservation?: boolean } = {},
): Promise<{ usedBytes: number; reservedBytes: number } | null> {
  // bigint parameters: a quota or a size past 2 GiB does not fit the int4 PostgreSQL would infer
  const fits = sql`(${quotaBytes}::bigint = 0 or ${driveSpaces.usedBytes} + ${driveSpaces.reservedBytes} + ${bytes}::bigint <= ${quotaBytes}::bigint)`;
  const set =
    opts.column === 'reserved'
      ? { reservedBytes: sql`${driveSpaces.reservedBytes} + ${bytes}::bigint` }
      : opts.fromReservation
        ? {
            usedBytes: sql`${driveSpaces.usedBytes} + ${bytes}::bigint`,
            reservedBytes: sql`greatest(${driveSpaces.reservedBytes} - ${bytes}::bigint, 0)`,
          }
        : { usedBytes: sql`${driveSpaces.usedBytes} + ${bytes}::bigint` };
  const [row] = await tx
    .update(driveSpaces)
    .set(set)
    .where(opts.fromReservation ? eq(driveSpaces.id, spaceId) : and(eq(driveSpaces.id, spaceId), fits))
    .returning({ usedBytes: driveSpaces.usedBytes, reservedBytes: driveSpaces.reservedBytes });
  return row ?? null;
}

/** Gives back used (purge, version cap) or reserved (an aborted upload) bytes. */
export async function releaseUsage(tx: Db, spaceId: number, bytes: number, column: 'used' | 'reserved' = 'used') {
  const col = column === 'used' ? driveSpaces.usedBytes : driveSpaces.reservedBytes;
  await tx
    .update(driveSpaces)
    .set(
      column === 'used'
        ? { usedBytes: sql`greatest(${col} - ${bytes}::bigint, 0)` }
        : { reservedBytes: sql`greatest(${col} - ${bytes}::bigint, 0)` },
    )
    .where(eq(driveSpaces.id, spaceId));
}

/** The subjects holding the manager role through the members table. */
export const managerMembers = (db: Db, spaceId: number) =>
  db
    .select({ subjectType: driveSpaceMembers.subjectType, subjectId: driveSpaceMembers.subjectId })
    .from(driveSpaceMembers)
    .where(and(eq(driveSpaceMembers.spaceId, spaceId), eq(driveSpaceMembers.role, 'manager')));
