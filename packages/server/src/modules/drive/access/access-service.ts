import { hasPermission, type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { driveErrors } from '../errors.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import { assertAllowed, type DriveOperation, maxRole, roleRank } from '../roles.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import * as spaces from '../spaces/space-repository.ts';
import type { DriveRole } from '../tables.ts';
import * as repo from './access-repository.ts';
import type { DriveDirectory, GrantSubject, GrantSubjects, RoleSource } from './types.ts';

/**
 * Effective roles (spec §5.5), in one place: menu RBAC has passed (the route's permission);
 * then a space manager is manager, otherwise the role is the maximum of the space role (only
 * where `acl_open`), the node's own grant and the grants along `acl_chain_ids`. Super
 * administrators and holders of `drive:admin:space:edit` are managers everywhere.
 */
export const ADMIN_PERMISSION = 'drive:admin:space:edit';

/** A signed-in user as the drive sees them, built once per request. */
export type DriveCaller = {
  scope: Scope;
  userId: number;
  admin: boolean;
  subjects: GrantSubjects;
  set: repo.SubjectSet;
};

export type Resolved = { role: DriveRole | null; sources: RoleSource[] };

const toSet = (s: GrantSubjects): repo.SubjectSet => ({
  userIds: [s.userId],
  departmentIds: s.departmentIds,
  roleIds: s.roleIds,
  groupIds: s.groupIds,
});

/** The highest applying role of a list of sources. */
const best = (sources: RoleSource[]) =>
  sources.filter((s) => s.applies).reduce<DriveRole | null>((r, s) => maxRole(r, s.role), null);

export function createAccessService(deps: { db: Db; clock: () => Date; directory: DriveDirectory }) {
  const { db, clock, directory } = deps;
  const gate = repo.prepareGate(db);

  async function caller(scope: Scope): Promise<DriveCaller> {
    const user = userOf(scope);
    if (!user) throw httpErrors.unauthenticated();
    // a super administrator working inside a tenant (X-Tenant-Id) is no user of it: no department,
    // role or group there, and manager everywhere anyway
    const visiting = user.isSuper && user.tenantId !== scope.tenantId;
    const subjects = visiting
      ? {
          userId: user.userId,
          departmentId: null,
          departmentIds: [],
          headOfDepartmentIds: [],
          roleIds: [],
          groupIds: [],
        }
      : await directory.grantSubjectsOfUser(scope.tenantId, user.userId);
    if (!subjects) throw httpErrors.unauthenticated('The signed-in user is no longer active');
    return {
      scope,
      userId: user.userId,
      admin: user.isSuper || hasPermission(user, ADMIN_PERMISSION),
      subjects,
      set: toSet(subjects),
    };
  }

  type Who = { set: repo.SubjectSet; user?: { userId: number; admin: boolean; headOf: number[] } };
  type SourceRow = Awaited<ReturnType<typeof repo.sourceRows>>[number];

  /** The space role sources that need no query: administrator, owner, head, department member, signed-in user. */
  function fixedSpaceSources(space: SpaceRow, who: Who): RoleSource[] {
    const out: RoleSource[] = [];
    const u = who.user;
    if (u?.admin)
      out.push({ kind: 'admin', role: 'manager', applies: true, reason: 'super administrator or drive administrator' });
    if (u && space.type !== 'department' && space.ownerUserId === u.userId) {
      out.push({ kind: 'owner', role: 'manager', applies: true });
    }
    if (space.type === 'department' && space.departmentId !== null) {
      if (u?.headOf.includes(space.departmentId)) out.push({ kind: 'departmentHead', role: 'manager', applies: true });
      if (space.defaultMemberRole && who.set.departmentIds.includes(space.departmentId)) {
        out.push({
          kind: 'departmentMember',
          role: space.defaultMemberRole,
          subject: { type: 'department', id: space.departmentId },
          applies: true,
        });
      }
    }
    if (space.type === 'team' && space.defaultMemberRole && u) {
      out.push({
        kind: 'signedIn',
        role: space.defaultMemberRole,
        applies: true,
        reason: 'every signed-in user of the tenant',
      });
    }
    return out;
  }

  /**
   * Every source of a role in a space and, with a node, on the node (§5.5): the space sources
   * (the members table only outside personal spaces), then — unless the space role is already
   * manager — the grants along the node's acl chain, the space role counting only where
   * `acl_open`. At most one query, none for a manager by standing (administrator, owner, head).
   */
  async function sourcesOf(
    space: SpaceRow,
    node: NodeRow | null,
    who: Who,
    opts: { explain?: boolean; rows?: SourceRow[] } = {},
  ) {
    const fixed = fixedSpaceSources(space, who);
    if (!opts.explain && best(fixed) === 'manager') return fixed;
    const rows =
      opts.rows ?? (await repo.sourceRows(db, space.id, space.type !== 'personal', node?.aclChainIds ?? [], who.set));
    const spaceSrc = [
      ...fixed,
      ...rows
        .filter((r) => r.kind === 'member')
        .map(
          (m): RoleSource => ({
            kind: 'member',
            role: m.role,
            subject: { type: m.subjectType, id: m.subjectId },
            applies: true,
          }),
        ),
    ];
    if (!node || best(spaceSrc) === 'manager') return spaceSrc;
    return [...spaceSrc.map((src) => (node.aclOpen ? src : cutByBreak(src))), ...grantSources(rows)];
  }

  const cutByBreak = (src: RoleSource): RoleSource => ({
    ...src,
    applies: false,
    reason: 'inheritance is broken above this node: the space role does not reach it',
  });

  function grantSources(rows: SourceRow[]): RoleSource[] {
    const now = clock();
    return rows
      .filter((r) => r.kind === 'grant')
      .map((g) => {
        const expired = g.expiresAt !== null && g.expiresAt <= now;
        return {
          kind: 'grant',
          role: g.role,
          subject: { type: g.subjectType, id: g.subjectId },
          nodeId: g.nodeId as number,
          expiresAt: g.expiresAt,
          applies: !expired,
          ...(expired ? { reason: 'expired' } : {}),
        };
      });
  }

  const whoOf = (c: DriveCaller) => ({
    set: c.set,
    user: { userId: c.userId, admin: c.admin, headOf: c.subjects.headOfDepartmentIds },
  });

  async function spaceOrThrow(scope: Scope, id: number) {
    const space = await spaces.findSpace(db, scope, id);
    if (!space) throw driveErrors.spaceNotFound();
    return space;
  }

  return {
    caller,

    /** A user's display name (lock holders, activity actors), or `user #<id>` when gone. */
    async userName(scope: Scope, userId: number): Promise<string> {
      const [u] = await directory.describeSubjects(scope.tenantId, [{ type: 'user', id: userId }]);
      return u?.name ?? `user #${userId}`;
    },

    /** The caller's role in a space (null: none). */
    async spaceRole(c: DriveCaller, space: SpaceRow): Promise<DriveRole | null> {
      return best(await sourcesOf(space, null, whoOf(c)));
    },

    /** The caller's role on a node of a space. */
    async nodeRole(c: DriveCaller, node: NodeRow, space: SpaceRow): Promise<DriveRole | null> {
      return best(await sourcesOf(space, node, whoOf(c)));
    },

    /**
     * The one gate of every node operation: the live node (or, for recycle-bin operations, the
     * deleted one), its space and the caller's role, refused as §5.5's matrix says. A node the
     * caller has no role on is not found.
     */
    async authorizeNode(c: DriveCaller, nodeId: number, op: DriveOperation, opts: { deleted?: boolean } = {}) {
      const found = await repo.gateRows(gate, c.scope.tenantId, nodeId, c.set);
      if (!found || (found.node.deletedAt !== null) !== (opts.deleted ?? false)) throw driveErrors.nodeNotFound();
      const { node, space } = found;
      const role = best(await sourcesOf(space, node, whoOf(c), { rows: found.rows }));
      assertAllowed(role, op, { archived: space.archivedAt !== null });
      return { node, space, role: role as DriveRole };
    },

    /** The gate of operations on a space itself, or on its root folder (parentId null). */
    async authorizeSpace(c: DriveCaller, spaceId: number, op: DriveOperation) {
      const space = await spaceOrThrow(c.scope, spaceId);
      const role = best(await sourcesOf(space, null, whoOf(c)));
      if (role === null) throw driveErrors.spaceNotFound();
      assertAllowed(role, op, { archived: space.archivedAt !== null });
      return { space, role };
    },

    /** Rank of the caller's space role, for listings (access-repository's SQL form of the rule). */
    async listingAccess(c: DriveCaller, space: SpaceRow) {
      const rank = roleRank(best(await sourcesOf(space, null, whoOf(c))));
      return { set: c.set, spaceRank: rank, now: clock() };
    },

    /**
     * Why a subject has the role it has on a node: each source, whether it applies, and the
     * result. A user is seen with their departments, roles and groups; a department with its
     * ancestors; a role or a group alone. `opts.caller`: the subject is the caller, seen as the
     * request sees them (their administrator standing included; other users' menu permissions are
     * identity's, so the explanation shows their drive sources).
     */
    async explain(
      scope: Scope,
      node: NodeRow,
      space: SpaceRow,
      subject: GrantSubject,
      opts: { caller?: DriveCaller } = {},
    ) {
      const self = opts.caller && subject.type === 'user' && subject.id === opts.caller.userId ? opts.caller : null;
      const [described] = await directory.describeSubjects(scope.tenantId, [subject]);
      const named = described ?? (self ? { ...subject, name: userOf(scope)?.username ?? `user #${subject.id}` } : null);
      if (!named) throw driveErrors.subjectNotFound('subjectId');
      let who: Who;
      if (self) {
        who = whoOf(self);
      } else if (subject.type === 'user') {
        const s = await directory.grantSubjectsOfUser(scope.tenantId, subject.id);
        if (!s) throw driveErrors.subjectNotFound('subjectId');
        who = { set: toSet(s), user: { userId: s.userId, admin: false, headOf: s.headOfDepartmentIds } };
      } else if (subject.type === 'department') {
        const chain = (await directory.departmentChain(scope.tenantId, subject.id)) ?? [subject.id];
        who = { set: { userIds: [], departmentIds: chain, roleIds: [], groupIds: [] } };
      } else {
        who = {
          set: {
            userIds: [],
            departmentIds: [],
            roleIds: subject.type === 'role' ? [subject.id] : [],
            groupIds: subject.type === 'group' ? [subject.id] : [],
          },
        };
      }
      const sources = await sourcesOf(space, node, who, { explain: true });
      return { subject: named, role: best(sources), aclOpen: node.aclOpen, chainNodeIds: node.aclChainIds, sources };
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
