import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { Page, PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { spacesByIds } from '../nodes/listing-repository.ts';
import { findLiveNode, findNode, findNodes, lockNode, type NodeRow } from '../nodes/node-repository.ts';
import { grantsOnNodes } from '../permissions/grants-repository.ts';
import { grantUserAtLeast } from '../permissions/grants-service.ts';
import { allows, roleRank } from '../roles.ts';
import { spaceManagerIds } from '../spaces/managers.ts';
import { findSpace, type SpaceRow } from '../spaces/space-repository.ts';
import type { DriveRole } from '../tables.ts';
import * as repo from './requests-repository.ts';

/**
 * Access requests (spec §4.3, issue 15): someone who was sent a link to a node they cannot use
 * (or can use only at a lower role) asks its managers for a role; a manager approves — which
 * grants the role in the same transaction — or rejects; the requester may withdraw while pending.
 */
export type RequestCreate = { nodeId: number; role: DriveRole; message?: string };
export type RequestApprove = { role?: DriveRole; expiresAt?: string | null; note?: string };
export type RequestReject = { note?: string };

type ViewCtx = { node: NodeRow | null; path: string; space: SpaceRow | null; names: Map<number, string> };

export function toAccessRequestView(r: repo.RequestRow, ctx: ViewCtx) {
  const name = (id: number) => ctx.names.get(id) ?? `user #${id}`;
  return {
    id: r.id,
    status: r.status,
    node: { id: r.nodeId, name: ctx.node?.name ?? `node #${r.nodeId}`, type: ctx.node?.type ?? 'file', path: ctx.path },
    space: { id: r.spaceId, name: ctx.space?.name ?? `space #${r.spaceId}` },
    requester: { id: r.requesterUserId, name: name(r.requesterUserId) },
    requestedRole: r.requestedRole,
    message: r.message,
    decidedBy: r.deciderUserId === null ? null : { id: r.deciderUserId, name: name(r.deciderUserId) },
    grantedRole: r.grantedRole,
    grantExpiresAt: r.grantExpiresAt,
    decisionNote: r.decisionNote,
    decidedAt: r.decidedAt,
    createdAt: r.createdAt,
  };
}

export type AccessRequestView = ReturnType<typeof toAccessRequestView>;

export function createRequestsService(core: DriveCore) {
  const { db, clock, access, directory, activities } = core;

  /** Views of requests, with node paths, space and user names fetched once for all. */
  async function viewsOf(scope: Scope, rows: repo.RequestRow[]): Promise<AccessRequestView[]> {
    const nodes = new Map((await findNodes(db, scope, [...new Set(rows.map((r) => r.nodeId))])).map((n) => [n.id, n]));
    const above = [...new Set([...nodes.values()].flatMap((n) => n.ancestorIds))];
    const folders = new Map((await findNodes(db, scope, above)).map((n) => [n.id, n.name]));
    const spaces = new Map<number, SpaceRow | null>();
    for (const id of new Set(rows.map((r) => r.spaceId))) spaces.set(id, await findSpace(db, scope, id));
    const userIds = [
      ...new Set(rows.flatMap((r) => [r.requesterUserId, ...(r.deciderUserId ? [r.deciderUserId] : [])])),
    ];
    const described = userIds.length
      ? await directory.describeSubjects(
          scope.tenantId,
          userIds.map((id) => ({ type: 'user' as const, id })),
        )
      : [];
    const names = new Map(described.map((s) => [s.id, s.name]));
    return rows.map((r) => {
      const node = nodes.get(r.nodeId) ?? null;
      const path = node ? `/${[...node.ancestorIds.map((id) => folders.get(id) ?? '…'), node.name].join('/')}` : '';
      return toAccessRequestView(r, { node, path, space: spaces.get(r.spaceId) ?? null, names });
    });
  }

  async function viewOf(scope: Scope, row: repo.RequestRow): Promise<AccessRequestView> {
    const [v] = await viewsOf(scope, [row]);
    return v as AccessRequestView;
  }

  /** The users who manage a node: the space's managers and the holders of a live manager grant on its chain. */
  async function managersOf(scope: Scope, node: NodeRow, space: SpaceRow): Promise<number[]> {
    const ids = new Set(await spaceManagerIds(db, directory, space));
    const now = clock();
    const grants = (await grantsOnNodes(db, scope, node.aclChainIds)).filter(
      (g) => g.role === 'manager' && (g.expiresAt === null || g.expiresAt > now),
    );
    for (const g of grants)
      for (const id of await directory.usersOfSubject(scope.tenantId, { type: g.subjectType, id: g.subjectId }))
        ids.add(id);
    return [...ids];
  }

  /** The caller's role on the request's node (null: none, or the node is gone). */
  async function roleOn(c: DriveCaller, r: repo.RequestRow) {
    const node = await findNode(db, c.scope, r.nodeId);
    const space = node ? await findSpace(db, c.scope, node.spaceId) : null;
    return node && space ? access.nodeRole(c, node, space) : null;
  }

  /** The request, when the caller asked it or manages its node; otherwise not found. */
  async function visibleRequest(c: DriveCaller, id: number) {
    const r = await repo.findRequest(db, c.scope, id);
    if (!r) throw driveErrors.accessRequestNotFound();
    const role = await roleOn(c, r);
    if (r.requesterUserId !== c.userId && !allows(role, 'grant')) throw driveErrors.accessRequestNotFound();
    return { request: r, role };
  }

  async function tellRequester(scope: Scope, r: repo.RequestRow, node: NodeRow, space: SpaceRow) {
    await core.notify('drive.access.resolved', {
      tenantId: scope.tenantId,
      recipients: [{ type: 'user', id: r.requesterUserId }],
      variables: {
        nodeName: node.name,
        spaceName: space.name,
        actorName: r.deciderUserId === null ? undefined : await access.userName(scope, r.deciderUserId),
        result: r.status,
      },
      link: `/drive?space=${space.id}&node=${node.id}`,
    });
  }

  /**
   * Decides a pending request as a manager of its node: the gate ('grant'), then in one
   * transaction the conditional pending → decided update (one decider wins), `extra` (the
   * grant of an approval) and the activity; the requester is told after commit.
   */
  async function decide(
    scope: Scope,
    id: number,
    status: 'approved' | 'rejected',
    input: { note?: string; role?: DriveRole; expiresAt?: Date | null },
  ) {
    const c = await access.caller(scope);
    const r = await repo.findRequest(db, scope, id);
    if (!r) throw driveErrors.accessRequestNotFound();
    const { node, space } = await access.authorizeNode(c, r.nodeId, 'grant');
    const now = clock();
    const row = await db.transaction(async (tx: Db) => {
      const locked = await lockNode(tx, scope, node.id);
      if (!locked || locked.deletedAt !== null) throw driveErrors.nodeNotFound();
      const done = await repo.decideRequest(tx, scope, r.id, {
        status,
        deciderUserId: c.userId,
        decisionNote: input.note ?? null,
        decidedAt: now,
        ...(status === 'approved' ? { grantedRole: input.role ?? null, grantExpiresAt: input.expiresAt ?? null } : {}),
      });
      if (!done) {
        const latest = await repo.findRequest(tx, scope, r.id);
        throw driveErrors.accessRequestDecided(latest?.status ?? 'decided');
      }
      if (status === 'approved' && input.role) {
        await grantUserAtLeast(tx, scope, activities, {
          node: locked,
          userId: r.requesterUserId,
          role: input.role,
          expiresAt: input.expiresAt ?? null,
          by: c.userId,
        });
      }
      await activities.record(tx, scope, [
        {
          spaceId: node.spaceId,
          nodeId: node.id,
          action: status === 'approved' ? 'access.approve' : 'access.reject',
          detail: {
            requestId: r.id,
            requester: r.requesterUserId,
            requestedRole: r.requestedRole,
            ...(status === 'approved' ? { role: input.role, expiresAt: input.expiresAt ?? null } : {}),
          },
        },
      ]);
      return done;
    });
    await tellRequester(scope, row, node, space);
    return viewOf(scope, row);
  }

  return {
    /** POST /access-requests: a node that exists in the tenant is requestable, seen or not. */
    async create(scope: Scope, input: RequestCreate): Promise<AccessRequestView> {
      const c = await access.caller(scope);
      const node = await findLiveNode(db, scope, input.nodeId);
      const space = node ? await findSpace(db, scope, node.spaceId) : null;
      if (!node || !space) throw driveErrors.nodeNotFound();
      const held = await access.nodeRole(c, node, space);
      if (held !== null && roleRank(held) >= roleRank(input.role)) throw driveErrors.accessAlreadyGranted(held);
      const row = await db.transaction(async (tx: Db) => {
        const r = await onUniqueViolation(
          repo.insertRequest(tx, scope, {
            spaceId: node.spaceId,
            nodeId: node.id,
            requesterUserId: c.userId,
            requestedRole: input.role,
            message: input.message ?? '',
          }),
          () => driveErrors.accessRequestPending(),
        );
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'access.request',
            detail: { requestId: r.id, role: r.requestedRole },
          },
        ]);
        return r;
      });
      const managers = (await managersOf(scope, node, space)).filter((id) => id !== c.userId);
      if (managers.length) {
        await core.notify('drive.access.requested', {
          tenantId: scope.tenantId,
          recipients: managers.sort((a, b) => a - b).map((id) => ({ type: 'user' as const, id })),
          variables: {
            nodeName: node.name,
            spaceName: space.name,
            actorName: await access.userName(scope, c.userId),
            role: input.role,
          },
          link: `/drive/access-requests/${row.id}`,
        });
      }
      return viewOf(scope, row);
    },

    /** GET /access-requests/pending: pending requests on nodes the caller manages, newest first. */
    async pending(scope: Scope, page: PageRequest): Promise<Page<AccessRequestView>> {
      const c = await access.caller(scope);
      const spaceRanks = new Map<number, number>();
      for (const space of await spacesByIds(db, scope, await repo.spacesWithPending(db, scope))) {
        spaceRanks.set(space.id, (await access.listingAccess(c, space)).spaceRank);
      }
      const p = await repo.pendingForManager(db, scope, { set: c.set, now: clock(), spaceRanks }, page);
      return { ...p, list: await viewsOf(scope, p.list) };
    },

    /** GET /access-requests/mine: the caller's own requests, any status, newest first. */
    async mine(scope: Scope, page: PageRequest): Promise<Page<AccessRequestView>> {
      const c = await access.caller(scope);
      const p = await repo.pageOfRequester(db, scope, c.userId, page);
      return { ...p, list: await viewsOf(scope, p.list) };
    },

    /** GET /access-requests/{id}: the request and the caller's own role on its node. */
    async get(scope: Scope, id: number) {
      const c = await access.caller(scope);
      const { request, role } = await visibleRequest(c, id);
      return { ...(await viewOf(scope, request)), yourRole: role };
    },

    async approve(scope: Scope, id: number, input: RequestApprove): Promise<AccessRequestView> {
      const r = await repo.findRequest(db, scope, id);
      let expiresAt: Date | null = null;
      if (input.expiresAt !== undefined && input.expiresAt !== null) {
        expiresAt = new Date(input.expiresAt);
        if (!(expiresAt > clock())) throw httpErrors.invalidField('expiresAt', 'must be in the future');
      }
      return decide(scope, id, 'approved', {
        role: input.role ?? r?.requestedRole,
        expiresAt,
        ...(input.note !== undefined ? { note: input.note } : {}),
      });
    },

    async reject(scope: Scope, id: number, input: RequestReject): Promise<AccessRequestView> {
      return decide(scope, id, 'rejected', input.note !== undefined ? { note: input.note } : {});
    },

    /** POST /access-requests/{id}/withdraw: the requester, while pending. */
    async withdraw(scope: Scope, id: number): Promise<AccessRequestView> {
      const c = await access.caller(scope);
      const { request: r } = await visibleRequest(c, id);
      if (r.requesterUserId !== c.userId) throw driveErrors.notRequester();
      const row = await db.transaction(async (tx: Db) => {
        const done = await repo.decideRequest(tx, scope, r.id, {
          status: 'withdrawn',
          deciderUserId: c.userId,
          decidedAt: clock(),
        });
        if (!done) throw driveErrors.accessRequestDecided(r.status === 'pending' ? 'decided' : r.status);
        await activities.record(tx, scope, [
          { spaceId: r.spaceId, nodeId: r.nodeId, action: 'access.withdraw', detail: { requestId: r.id } },
        ]);
        return done;
      });
      return viewOf(scope, row);
    },
  };
}

export type RequestsService = ReturnType<typeof createRequestsService>;
