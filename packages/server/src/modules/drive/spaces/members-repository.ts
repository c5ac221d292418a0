import { and, eq } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type Page, type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { type DriveRole, driveSpaceMembers, type SubjectType } from '../tables.ts';

/** Queries of space members: a (space, subject type, subject id) is unique. */
type TenantScope = Pick<Scope, 'tenantId'>;
export type MemberRow = typeof driveSpaceMembers.$inferSelect;

const memberRows = scoped(driveSpaceMembers);
const ofSpace = (spaceId: number, id: number) =>
  and(eq(driveSpaceMembers.spaceId, spaceId), eq(driveSpaceMembers.id, id));

export const pageMembers = (db: Db, scope: TenantScope, spaceId: number, page: PageRequest): Promise<Page<MemberRow>> =>
  memberRows.page(db, scope, page, eq(driveSpaceMembers.spaceId, spaceId), driveSpaceMembers.id);

/** A member row of that space (a member id of another space is not found). */
export async function findMember(db: Db, scope: TenantScope, spaceId: number, id: number): Promise<MemberRow | null> {
  const [row] = await memberRows.findMany(db, scope, ofSpace(spaceId, id));
  return row ?? null;
}

/** A duplicate subject is a unique violation (`drive_space_members_subject`). */
export const insertMember = (
  tx: Db,
  scope: TenantScope,
  row: { spaceId: number; subjectType: SubjectType; subjectId: number; role: DriveRole; createdBy: number | null },
) => memberRows.insert(tx, scope, row);

export async function updateMemberRole(
  tx: Db,
  scope: TenantScope,
  spaceId: number,
  id: number,
  role: DriveRole,
): Promise<MemberRow | null> {
  const [row] = await tx
    .update(driveSpaceMembers)
    .set({ role })
    .where(memberRows.where(scope, ofSpace(spaceId, id)))
    .returning();
  return row ?? null;
}

export async function deleteMember(tx: Db, scope: TenantScope, spaceId: number, id: number): Promise<MemberRow | null> {
  const [row] = await tx
    .delete(driveSpaceMembers)
    .where(memberRows.where(scope, ofSpace(spaceId, id)))
    .returning();
  return row ?? null;
}

/** Makes a user a manager member of a space, whatever member row they had (ownership transfer). */
export async function upsertManager(tx: Db, scope: TenantScope, spaceId: number, userId: number, by: number | null) {
  await tx
    .insert(driveSpaceMembers)
    .values({
      tenantId: platformKey(scope.tenantId),
      spaceId,
      subjectType: 'user',
      subjectId: userId,
      role: 'manager',
      createdBy: by,
    })
    .onConflictDoUpdate({
      target: [driveSpaceMembers.spaceId, driveSpaceMembers.subjectType, driveSpaceMembers.subjectId],
      set: { role: 'manager' },
    });
}
