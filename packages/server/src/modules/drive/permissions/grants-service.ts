import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { GrantSubject, RoleSource } from '../access/types.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import {
  findNode,
  findNodes,
  lockNode,
  type NodeRow,
  rewriteSubtree,
  treeColumnsUnder,
} from '../nodes/node-repository.ts';
import { allows, roleRank } from '../roles.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import type { DriveRole, SubjectType } from '../tables.ts';
import * as repo from './grants-repository.ts';

/**
 * Grants, inheritance and the access explanation (spec §5.5): a manager of a node grants a
 * subject (user, department with its sub-departments, role, user group) a role on it, which
 * reaches its subtree until a node breaks inheritance; anyone who can browse a node sees who is
 * granted on it and why they themselves have the role they have.
 */
export type GrantCreate = { subjectType: SubjectType; subjectId: number; role: DriveRole; expiresAt?: string | null };
export type GrantUpdate = { role?: DriveRole; expiresAt?: string | null };
export type InheritChange = { inherit: boolean; copyInherited?: boolean };
export type AccessQuery = { subjectType?: SubjectType; subjectId?: number };

type Named = GrantSubject & { name: string };
const keyOf = (s: GrantSubject) => `${s.type}:${s.id}`;
const SUBJECT_WORD: Record<SubjectType, string> = {
  user: 'user',
  department: 'department',
  role: 'role',
  group: 'user group',
};

export function toGrantView(
  g: repo.GrantRow,
  ctx: { node: NodeRow; on: NodeRow | undefined; names: Map<string, string>; now: Date },
) {
  const subject = { type: g.subjectType, id: g.subjectId };
  return {
    id: g.id,
    nodeId: g.nodeId,
    nodeName: ctx.on?.name ?? `node #${g.nodeId}`,
    inherited: g.nodeId !== ctx.node.id,
    subject: { ...subject, name: ctx.names.get(keyOf(subject)) ?? `${g.subjectType} #${g.subjectId}` },
    role: g.role,
    expiresAt: g.expiresAt,
    expired: g.expiresAt !== null && g.expiresAt <= ctx.now,
    createdBy:
      g.createdBy === null
        ? null
        : { id: g.createdBy, name: ctx.names.get(`user:${g.createdBy}`) ?? `user #${g.createdBy}` },
    createdAt: g.createdAt,
  };
}

export type GrantView = ReturnType<typeof toGrantView>;

/** The node that breaks inheritance for `node` (itself or above), when one does. */
const breakOf = (node: NodeRow) => (node.aclOpen ? null : (node.aclChainIds[0] ?? node.id));

const nodeRef = (n: NodeRow) => ({ id: n.id, name: n.name, type: n.type });

/**
 * Gives a user at least `role` on a node by their own direct grant, inside the caller's
 * transaction (the node locked): a new grant, or the existing one raised to the higher role with
 * the expiry given (an access request's approval). Records grant.add or grant.update.
 */
export async function grantUserAtLeast(
  tx: Db,
  scope: Scope,
  activities: DriveCore['activities'],
  g: { node: NodeRow; userId: number; role: DriveRole; expiresAt: Date | null; by: number },
): Promise<repo.GrantRow> {
  const subject = { type: 'user' as const, id: g.userId };
  const had = await repo.lockSubjectGrant(tx, scope, g.node.id, subject);
  if (!had) {
    const row = await repo.insertGrant(tx, scope, {
      spaceId: g.node.spaceId,
      nodeId: g.node.id,
      subjectType: 'user',
      subjectId: g.userId,
      role: g.role,
      expiresAt: g.expiresAt,
      createdBy: g.by,
    });
    await activities.record(tx, scope, [
      {
        spaceId: g.node.spaceId,
        nodeId: g.node.id,
        action: 'grant.add',
        detail: { grantId: row.id, subject, role: row.role, expiresAt: row.expiresAt },
      },
    ]);
    return row;
  }
  const role = roleRank(had.role) >= roleRank(g.role) ? had.role : g.role;
  const row =
    (await repo.updateGrant(tx, scope, had.id, {
      role,
      expiresAt: g.expiresAt,
      ...(g.expiresAt?.getTime() !== had.expiresAt?.getTime() ? { remindedAt: null } : {}),
    })) ?? had;
  await activities.record(tx, scope, [
    {
      spaceId: g.node.spaceId,
      nodeId: g.node.id,
      action: 'grant.update',
      detail: {
        grantId: had.id,
        subject,
        from: { role: had.role, expiresAt: had.expiresAt },
        to: { role, expiresAt: g.expiresAt },
      },
    },
  ]);
  return row;
}

export function createGrantsService(core: DriveCore) {
  const { db, clock, access, directory, activities } = core;

  /** Display names of subjects (and of users by id), keyed `type:id`; the gone are absent. */
  async function namesOf(scope: Scope, subjects: GrantSubject[]): Promise<Map<string, string>> {
    const unique = [...new Map(subjects.map((s) => [keyOf(s), s])).values()];
    const found = unique.length ? await directory.describeSubjects(scope.tenantId, unique) : [];
    return new Map(found.map((s) => [keyOf(s), s.name]));
  }

  /** An expiry from the request: in the future, or null (never). */
  function futureOrNull(raw: string | null | undefined, now: Date): Date | null {
    if (raw === undefined || raw === null) return null;
    const at = new Date(raw);
    if (!(at > now)) throw httpErrors.invalidField('expiresAt', 'must be in the future');
    return at;
  }

  /** The subject, named, when it exists in the caller's tenant. */
  async function existingSubject(scope: Scope, subject: GrantSubject): Promise<Named> {
    const [named] = await directory.describeSubjects(scope.tenantId, [subject]);
    if (!named) throw driveErrors.subjectNotFound('subjectId');
    return named;
  }

  /** Locks the live node for the rest of the transaction (it may have gone since the gate). */
  async function lockLive(tx: Db, scope: Scope, id: number): Promise<NodeRow> {
    const node = await lockNode(tx, scope, id);
    if (!node || node.deletedAt !== null) throw driveErrors.nodeNotFound();
    return node;
  }

  /** The node's grants and those reaching it along its acl chain, nearest first. */
  async function permissionsOf(scope: Scope, node: NodeRow) {
    const chain = await findNodes(db, scope, node.aclChainIds);
    const byId = new Map(chain.map((n) => [n.id, n]));
    const depth = new Map(node.aclChainIds.map((id, i) => [id, i]));
    const grants = (await repo.grantsOnNodes(db, scope, node.aclChainIds)).sort(
      (a, b) => (depth.get(b.nodeId) ?? 0) - (depth.get(a.nodeId) ?? 0) || a.id - b.id,
    );
    const names = await namesOf(scope, [
      ...grants.map((g) => ({ type: g.subjectType, id: g.subjectId })),
      ...grants.flatMap((g) => (g.createdBy === null ? [] : [{ type: 'user' as const, id: g.createdBy }])),
    ]);
    const brk = breakOf(node);
    const at = brk === null ? undefined : byId.get(brk);
    const now = clock();
    return {
      nodeId: node.id,
      inheritPermissions: node.inheritPermissions,
      aclOpen: node.aclOpen,
      breakAt: at ? nodeRef(at) : null,
      grants: grants.map((g) => toGrantView(g, { node, on: byId.get(g.nodeId), names, now })),
    };
  }

  /** `drive.node.shared` to the users the subject stands for, the granter aside (after commit). */
  async function notifyShared(scope: Scope, c: DriveCaller, node: NodeRow, space: SpaceRow, subject: GrantSubject) {
    const users = (await directory.usersOfSubject(scope.tenantId, subject)).filter((id) => id !== c.userId);
    if (users.length === 0) return;
    await core.notify('drive.node.shared', {
      tenantId: scope.tenantId,
      recipients: users.map((id) => ({ type: 'user' as const, id })),
      variables: { nodeName: node.name, spaceName: space.name, actorName: await access.userName(scope, c.userId) },
      link: `/drive?space=${space.id}&node=${node.id}`,
    });
  }

  async function grantView(scope: Scope, node: NodeRow, g: repo.GrantRow) {
    const names = await namesOf(scope, [
      { type: g.subjectType, id: g.subjectId },
      ...(g.createdBy === null ? [] : [{ type: 'user' as const, id: g.createdBy }]),
    ]);
    return toGrantView(g, { node, on: node, names, now: clock() });
  }

  /** A subject's best live grant among `grants`: the highest role, then the latest expiry (null: never). */
  function bestPerSubject(grants: repo.GrantRow[]): repo.GrantRow[] {
    const best = new Map<string, repo.GrantRow>();
    const later = (a: Date | null, b: Date | null) => a === null || (b !== null && a > b);
    for (const g of grants) {
      const k = keyOf({ type: g.subjectType, id: g.subjectId });
      const cur = best.get(k);
      const rank = roleRank(g.role) - roleRank(cur?.role);
      if (!cur || rank > 0 || (rank === 0 && later(g.expiresAt, cur.expiresAt))) best.set(k, g);
    }
    return [...best.values()];
  }

  return {
    /** GET /nodes/{id}/permissions: any role may see who is granted. */
    async list(scope: Scope, nodeId: number) {
      const { node } = await access.authorizeNode(await access.caller(scope), nodeId, 'browse');
      return permissionsOf(scope, node);
    },

    async add(scope: Scope, nodeId: number, input: GrantCreate): Promise<GrantView> {
      const c = await access.caller(scope);
      const { node, space } = await access.authorizeNode(c, nodeId, 'grant');
      const expiresAt = futureOrNull(input.expiresAt, clock());
      const subject = await existingSubject(scope, { type: input.subjectType, id: input.subjectId });
      const row = await db.transaction(async (tx) => {
        await lockLive(tx, scope, node.id);
        const g = await onUniqueViolation(
          repo.insertGrant(tx, scope, {
            spaceId: node.spaceId,
            nodeId: node.id,
            subjectType: subject.type,
            subjectId: subject.id,
            role: input.role,
            expiresAt,
            createdBy: c.userId,
          }),
          () => driveErrors.grantExists(),
        );
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'grant.add',
            detail: { grantId: g.id, subject, role: g.role, expiresAt },
          },
        ]);
        return g;
      });
      await notifyShared(scope, c, node, space, subject);
      return grantView(scope, node, row);
    },

    async update(scope: Scope, nodeId: number, grantId: number, input: GrantUpdate): Promise<GrantView> {
      const c = await access.caller(scope);
      const { node } = await access.authorizeNode(c, nodeId, 'grant');
      const now = clock();
      const expiresAt = input.expiresAt === undefined ? undefined : futureOrNull(input.expiresAt, now);
      const row = await db.transaction(async (tx) => {
        await lockLive(tx, scope, node.id);
        const g = await repo.findGrant(tx, scope, node.id, grantId);
        if (!g) throw driveErrors.grantNotFound();
        const role = input.role ?? g.role;
        const until = expiresAt === undefined ? g.expiresAt : expiresAt;
        if (role === g.role && until?.getTime() === g.expiresAt?.getTime()) return g;
        // a new expiry re-arms its reminder
        const changed = await repo.updateGrant(tx, scope, g.id, {
          role,
          expiresAt: until,
          ...(until?.getTime() !== g.expiresAt?.getTime() ? { remindedAt: null } : {}),
        });
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'grant.update',
            detail: {
              grantId: g.id,
              subject: { type: g.subjectType, id: g.subjectId },
              from: { role: g.role, expiresAt: g.expiresAt },
              to: { role, expiresAt: until },
            },
          },
        ]);
        return changed ?? g;
      });
      return grantView(scope, node, row);
    },

    async remove(scope: Scope, nodeId: number, grantId: number): Promise<void> {
      const c = await access.caller(scope);
      const { node } = await access.authorizeNode(c, nodeId, 'grant');
      await db.transaction(async (tx) => {
        await lockLive(tx, scope, node.id);
        const g = await repo.findGrant(tx, scope, node.id, grantId);
        if (!g) throw driveErrors.grantNotFound();
        await repo.deleteGrant(tx, scope, g.id);
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'grant.remove',
            detail: { grantId: g.id, subject: { type: g.subjectType, id: g.subjectId }, role: g.role },
          },
        ]);
      });
    },

    /**
     * Breaks (inherit false) or restores inheritance at a node, for its whole subtree. A break
     * makes the node the top of its acl chain and cuts the space's roles below it (acl_open
     * false); with `copyInherited` (default) the live grants that reached it from above become
     * its own, so no granted subject loses access. A restore takes the parent's chain and
     * acl_open again. Asking for the state the node is in changes nothing.
     */
    async setInherit(scope: Scope, nodeId: number, input: InheritChange) {
      const c = await access.caller(scope);
      const { node } = await access.authorizeNode(c, nodeId, 'inherit');
      const now = clock();
      await db.transaction(async (tx) => {
        const locked = await lockLive(tx, scope, node.id);
        if (locked.inheritPermissions === input.inherit) return;
        if (!input.inherit) {
          const above = locked.aclChainIds.filter((id) => id !== locked.id);
          const live = (await repo.grantsOnNodes(tx, scope, above)).filter(
            (g) => g.expiresAt === null || g.expiresAt > now,
          );
          const copied =
            input.copyInherited === false
              ? []
              : await repo.insertGrantsIfAbsent(
                  tx,
                  scope,
                  bestPerSubject(live).map((g) => ({
                    spaceId: locked.spaceId,
                    nodeId: locked.id,
                    subjectType: g.subjectType,
                    subjectId: g.subjectId,
                    role: g.role,
                    expiresAt: g.expiresAt,
                    createdBy: c.userId,
                  })),
                );
          await rewriteSubtree(
            tx,
            locked,
            {
              parentId: locked.parentId,
              ancestorIds: locked.ancestorIds,
              aclChainIds: [locked.id],
              aclOpen: false,
              inheritPermissions: false,
            },
            now,
          );
          await activities.record(tx, scope, [
            {
              spaceId: locked.spaceId,
              nodeId: locked.id,
              action: 'inherit.break',
              detail: {
                copied: copied.map((g) => ({
                  grantId: g.id,
                  subject: { type: g.subjectType, id: g.subjectId },
                  role: g.role,
                })),
              },
            },
          ]);
          return;
        }
        const parent = locked.parentId === null ? null : await lockNode(tx, scope, locked.parentId);
        const tree = treeColumnsUnder(parent, locked.id, true);
        await rewriteSubtree(tx, locked, { parentId: locked.parentId, ...tree, inheritPermissions: true }, now);
        await activities.record(tx, scope, [
          { spaceId: locked.spaceId, nodeId: locked.id, action: 'inherit.restore', detail: {} },
        ]);
      });
      const after = await findNode(db, scope, node.id);
      if (!after) throw driveErrors.nodeNotFound();
      return permissionsOf(scope, after);
    },

    /**
     * Why a subject has the role it has on a node. Anyone who can browse the node may ask about
     * themselves (no subject given, or their own user id); asking about another subject needs
     * the manager role, as granting does.
     */
    async explain(scope: Scope, nodeId: number, q: AccessQuery) {
      const c = await access.caller(scope);
      const { node, space, role } = await access.authorizeNode(c, nodeId, 'browse');
      if ((q.subjectType === undefined) !== (q.subjectId === undefined)) {
        const missing = q.subjectType === undefined ? 'subjectType' : 'subjectId';
        throw httpErrors.invalidField(missing, 'subjectType and subjectId go together (neither: yourself)');
      }
      const subject: GrantSubject =
        q.subjectType !== undefined && q.subjectId !== undefined
          ? { type: q.subjectType, id: q.subjectId }
          : { type: 'user', id: c.userId };
      const self = subject.type === 'user' && subject.id === c.userId;
      if (!self && !allows(role, 'grant'))
        throw driveErrors.roleTooLow("inspect another subject's access", 'manager', role);
      const r = await access.explain(scope, node, space, subject, { caller: c });
      const chain = await findNodes(db, scope, r.chainNodeIds);
      const byId = new Map(chain.map((n) => [n.id, n]));
      const names = await namesOf(
        scope,
        r.sources.flatMap((s) => (s.subject ? [s.subject] : [])),
      );
      const sources = r.sources.map((s) => {
        const subj = s.subject
          ? { ...s.subject, name: names.get(keyOf(s.subject)) ?? `${s.subject.type} #${s.subject.id}` }
          : undefined;
        const on = s.nodeId === undefined ? undefined : byId.get(s.nodeId);
        return {
          ...s,
          ...(subj ? { subject: subj } : {}),
          ...(s.nodeId !== undefined ? { nodeName: on?.name ?? `node #${s.nodeId}` } : {}),
          description: describeSource(s, subj, on),
        };
      });
      const brk = breakOf(node);
      const at = brk === null ? undefined : byId.get(brk);
      return {
        subject: r.subject,
        role: r.role,
        summary: summarize(r.role, sources, at),
        aclOpen: r.aclOpen,
        breakAt: at ? nodeRef(at) : null,
        chain: r.chainNodeIds.flatMap((id) => {
          const n = byId.get(id);
          return n ? [nodeRef(n)] : [];
        }),
        sources,
      };
    },
  };
}

export type GrantsService = ReturnType<typeof createGrantsService>;

/** A source of a role in words: "a grant to department Sales on folder Projects". */
function describeSource(s: RoleSource, subject: Named | undefined, on: NodeRow | undefined): string {
  const who = subject ? `${SUBJECT_WORD[subject.type]} ${subject.name}` : '';
  switch (s.kind) {
    case 'admin':
      return 'drive administrator (manager in every space)';
    case 'owner':
      return 'owner of the space';
    case 'departmentHead':
      return "head of the space's department";
    case 'departmentMember':
      return `member of ${who} (the space's default role)`;
    case 'signedIn':
      return "the space's default role for every signed-in user";
    case 'member':
      return `space member as ${who}`;
    case 'grant':
      return `a grant to ${who} on ${on ? `${on.type} ${on.name}` : `node #${s.nodeId}`}`;
  }
}

/** The answer in one line: "editor — from a grant to department Sales on folder Projects". */
function summarize(
  role: DriveRole | null,
  sources: (RoleSource & { description: string })[],
  breakAt: NodeRow | undefined,
): string {
  if (role !== null) {
    const giving = sources.filter((s) => s.applies && s.role === role);
    const [first] = giving;
    const more = giving.length > 1 ? ` (and ${giving.length - 1} more)` : '';
    return `${role} — from ${first?.description ?? 'no source'}${more}`;
  }
  const expired = sources.filter((s) => s.kind === 'grant' && s.reason === 'expired').length;
  const cut = sources.some((s) => s.kind !== 'grant' && !s.applies);
  const parts: string[] = [];
  if (breakAt && cut)
    parts.push(`inheritance is broken at ${breakAt.type} ${breakAt.name}, so the space role does not reach it`);
  else parts.push('no space role');
  parts.push(expired ? `no live grant (${expired} expired)` : 'no grant');
  return `no access — ${parts.join('; ')}`;
}
