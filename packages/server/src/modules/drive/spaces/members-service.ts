import type { Scope } from '../../../platform/auth/principal.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import type { GrantSubject } from '../access/types.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { DriveRole, SubjectType } from '../tables.ts';
import * as repo from './members-repository.ts';

/**
 * Space members (spec §2.2, §5.5): users, departments (with their sub-departments), roles and
 * user groups holding a role in a team or department space. Any space role lists them; a
 * manager changes them. A personal space has none: its owner shares through node grants.
 */
export type MemberAdd = { subjectType: SubjectType; subjectId: number; role: DriveRole };

export type SpaceMemberView = ReturnType<typeof toSpaceMemberView>;

export function toSpaceMemberView(m: repo.MemberRow, subjectName: string | null) {
  return {
    id: m.id,
    spaceId: m.spaceId,
    subjectType: m.subjectType,
    subjectId: m.subjectId,
    subjectName,
    role: m.role,
    createdBy: m.createdBy,
    createdAt: m.createdAt,
  };
}

export function createSpaceMembersService(core: DriveCore) {
  const { db, access, activities, directory } = core;

  const nameOf = async (scope: Scope, s: GrantSubject) =>
    (await directory.describeSubjects(scope.tenantId, [s]))[0]?.name ?? null;

  /** The manager gate of member changes: a personal space has no members. */
  async function managed(scope: Scope, spaceId: number) {
    const c = await access.caller(scope);
    const { space } = await access.authorizeSpace(c, spaceId, 'members');
    if (space.type === 'personal') throw driveErrors.personalSpace('have members');
    return { c, space };
  }

  return {
    async list(scope: Scope, spaceId: number, page: PageRequest) {
      const c = await access.caller(scope);
      await access.authorizeSpace(c, spaceId, 'browse');
      const rows = await repo.pageMembers(db, scope, spaceId, page);
      const named = await directory.describeSubjects(
        scope.tenantId,
        rows.list.map((m) => ({ type: m.subjectType, id: m.subjectId })),
      );
      const nameOfRow = (m: repo.MemberRow) =>
        named.find((n) => n.type === m.subjectType && n.id === m.subjectId)?.name ?? null;
      return { ...rows, list: rows.list.map((m) => toSpaceMemberView(m, nameOfRow(m))) };
    },

    /** Adds a member; the users the subject stands for are told once the change is committed. */
    async add(scope: Scope, spaceId: number, input: MemberAdd): Promise<SpaceMemberView> {
      const { c, space } = await managed(scope, spaceId);
      const subject = { type: input.subjectType, id: input.subjectId };
      const subjectName = await nameOf(scope, subject);
      if (subjectName === null) throw driveErrors.subjectNotFound('subjectId');
      const row = await db.transaction(async (tx) => {
        const m = await onUniqueViolation(
          repo.insertMember(tx, scope, {
            spaceId,
            subjectType: input.subjectType,
            subjectId: input.subjectId,
            role: input.role,
            createdBy: c.userId,
          }),
          () => driveErrors.memberExists(),
        );
        await activities.record(tx, scope, [
          { spaceId, nodeId: null, action: 'member.add', detail: { ...subject, role: input.role } },
        ]);
        return m;
      });
      const recipients = (await directory.usersOfSubject(scope.tenantId, subject)).filter((id) => id !== c.userId);
      if (recipients.length) {
        await core.notify('drive.space.joined', {
          tenantId: scope.tenantId,
          recipients: recipients.map((id) => ({ type: 'user' as const, id })),
          variables: { spaceName: space.name, role: input.role, actorName: await access.userName(scope, c.userId) },
          link: `/drive?space=${spaceId}`,
        });
      }
      return toSpaceMemberView(row, subjectName);
    },

    async update(scope: Scope, spaceId: number, memberId: number, role: DriveRole): Promise<SpaceMemberView> {
      await managed(scope, spaceId);
      const row = await db.transaction(async (tx) => {
        const m = await repo.updateMemberRole(tx, scope, spaceId, memberId, role);
        if (!m) throw driveErrors.memberNotFound();
        await activities.record(tx, scope, [
          {
            spaceId,
            nodeId: null,
            action: 'member.update',
            detail: { type: m.subjectType, id: m.subjectId, role },
          },
        ]);
        return m;
      });
      return toSpaceMemberView(row, await nameOf(scope, { type: row.subjectType, id: row.subjectId }));
    },

    async remove(scope: Scope, spaceId: number, memberId: number): Promise<void> {
      await managed(scope, spaceId);
      await db.transaction(async (tx) => {
        const m = await repo.deleteMember(tx, scope, spaceId, memberId);
        if (!m) throw driveErrors.memberNotFound();
        await activities.record(tx, scope, [
          { spaceId, nodeId: null, action: 'member.remove', detail: { type: m.subjectType, id: m.subjectId } },
        ]);
      });
    },
  };
}

export type SpaceMembersService = ReturnType<typeof createSpaceMembersService>;
