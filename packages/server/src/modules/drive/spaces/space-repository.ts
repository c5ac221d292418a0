import { and, eq, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { scoped } from '../../../platform/db/scoped.ts';
import { driveSpaceMembers, driveSpaces } from '../tables.ts';

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

/** The personal space of a user, created on first access (one per user, by unique index). */
export async function ensurePersonalSpace(db: Db, scope: TenantScope, userId: number, name: string): Promise<SpaceRow> {
  await db
    .insert(driveSpaces)
    .values({ tenantId: scope.tenantId, type: 'personal', name, ownerUserId: userId, createdBy: userId })
    .onConflictDoNothing();
  const [row] = await db
    .select()
    .from(driveSpaces)
    .where(spaceRows.where(scope, and(eq(driveSpaces.type, 'personal'), eq(driveSpaces.ownerUserId, userId))));
  if (!row) throw new Error(`personal space of user ${userId} missing after insert`);
  return row;
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
  const fits = sql`(${quotaBytes}::bigint = 0 or ${driveSpaces.usedBytes} + ${driveSpaces.reservedBytes} + ${bytes} <= ${quotaBytes})`;
  const set =
    opts.column === 'reserved'
      ? { reservedBytes: sql`${driveSpaces.reservedBytes} + ${bytes}` }
      : opts.fromReservation
        ? {
            usedBytes: sql`${driveSpaces.usedBytes} + ${bytes}`,
            reservedBytes: sql`greatest(${driveSpaces.reservedBytes} - ${bytes}, 0)`,
          }
        : { usedBytes: sql`${driveSpaces.usedBytes} + ${bytes}` };
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
        ? { usedBytes: sql`greatest(${col} - ${bytes}, 0)` }
        : { reservedBytes: sql`greatest(${col} - ${bytes}, 0)` },
    )
    .where(eq(driveSpaces.id, spaceId));
}

/** The subjects holding the manager role through the members table. */
export const managerMembers = (db: Db, spaceId: number) =>
  db
    .select({ subjectType: driveSpaceMembers.subjectType, subjectId: driveSpaceMembers.subjectId })
    .from(driveSpaceMembers)
    .where(and(eq(driveSpaceMembers.spaceId, spaceId), eq(driveSpaceMembers.role, 'manager')));
