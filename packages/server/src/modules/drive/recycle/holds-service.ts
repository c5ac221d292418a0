import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import * as nodes from '../nodes/node-repository.ts';
import { spaceManagerIds } from '../spaces/managers.ts';
import { findSpace } from '../spaces/space-repository.ts';
import * as repo from './holds-repository.ts';

/**
 * Legal holds (spec §2.2, §3.5): while a hold is active, its node, the node's ancestors and its
 * subtree cannot be deleted, purged, emptied from the recycle bin or expired by retention.
 * Placing and releasing are audited twice: an activity inside the transaction and the mandatory
 * `drive.legal_hold.changed` notification to the space's managers after it commits.
 */
export type HoldView = ReturnType<typeof toHoldView>;

export function toHoldView(
  h: repo.HoldRow,
  node: { name: string; deletedAt: Date | null },
  names: Map<number, string>,
) {
  const name = (id: number | null) => (id === null ? null : (names.get(id) ?? `user #${id}`));
  return {
    id: h.id,
    spaceId: h.spaceId,
    nodeId: h.nodeId,
    nodeName: node.name,
    nodeDeleted: node.deletedAt !== null,
    reason: h.reason,
    active: h.active,
    placedBy: h.placedBy,
    placedByName: name(h.placedBy),
    placedAt: h.placedAt,
    releasedBy: h.releasedBy,
    releasedByName: name(h.releasedBy),
    releasedAt: h.releasedAt,
    releaseNote: h.releaseNote,
  };
}

/** Free text of an audit record: trimmed, never blank. */
function auditText(raw: string, field: string): string {
  const text = raw.trim();
  if (text.length === 0) throw httpErrors.invalidField(field, 'must not be blank');
  return text;
}

export function createHoldsService(core: Pick<DriveCore, 'db' | 'clock' | 'directory' | 'notify' | 'activities'>) {
  const { db, clock, directory, activities } = core;

  async function userNames(scope: Scope, ids: (number | null)[]): Promise<Map<number, string>> {
    const unique = [...new Set(ids.filter((id): id is number => id !== null))];
    if (unique.length === 0) return new Map();
    const named = await directory.describeSubjects(
      scope.tenantId,
      unique.map((id) => ({ type: 'user' as const, id })),
    );
    return new Map(named.map((s) => [s.id, s.name]));
  }

  /** The mandatory notification of a change, to the managers of the node's space. */
  async function announce(scope: Scope, node: nodes.NodeRow, action: 'placed' | 'released') {
    const space = await findSpace(db, scope, node.spaceId);
    if (!space) return;
    const recipients = await spaceManagerIds(db, directory, space);
    if (recipients.length === 0) return;
    const actorId = userOf(scope)?.userId ?? null;
    const actorName = actorId === null ? 'system' : (await userNames(scope, [actorId])).get(actorId);
    await core.notify('drive.legal_hold.changed', {
      tenantId: space.tenantId,
      recipients: recipients.map((id) => ({ type: 'user' as const, id })),
      variables: { nodeName: node.name, spaceName: space.name, actorName: actorName ?? `user #${actorId}`, action },
      link: `/drive?space=${space.id}&node=${node.id}`,
    });
  }

  return {
    /** Refuses (409 drive.legal_hold) when any of the nodes is held: itself, an ancestor or a descendant. */
    async assertNotHeld(tx: Db, scope: Scope, nodeIds: number[]) {
      const [held] = await repo.heldAmong(tx, scope, nodeIds);
      if (held) throw driveErrors.held(held.holdNodeName);
    },

    /** The ids among `nodeIds` a hold reaches (what empty and retention skip). */
    async heldIds(tx: Db, scope: Scope, nodeIds: number[]): Promise<Set<number>> {
      return new Set((await repo.heldAmong(tx, scope, nodeIds)).map((h) => h.nodeId));
    },

    /** Places a hold on a live node or one in the recycle bin; a second active hold is a 409. */
    async place(scope: Scope, input: { nodeId: number; reason: string }): Promise<HoldView> {
      const reason = auditText(input.reason, 'reason');
      const by = userOf(scope)?.userId ?? null;
      const { hold, node } = await db.transaction(async (tx) => {
        // the node row locked: a delete or purge under way finishes first, and sees the hold if it comes first
        const node = await nodes.lockNode(tx, scope, input.nodeId);
        if (!node) throw driveErrors.nodeNotFound();
        const hold = await onUniqueViolation(
          repo.insertHold(tx, scope, {
            spaceId: node.spaceId,
            nodeId: node.id,
            reason,
            placedBy: by,
            placedAt: clock(),
          }),
          () => driveErrors.alreadyHeld(),
        );
        await activities.record(tx, scope, [
          { spaceId: node.spaceId, nodeId: node.id, action: 'hold.place', detail: { holdId: hold.id, reason } },
        ]);
        return { hold, node };
      });
      await announce(scope, node, 'placed');
      return toHoldView(hold, node, await userNames(scope, [hold.placedBy]));
    },

    /** Releases an active hold (a conditional update: releasing twice is a 409). */
    async release(scope: Scope, id: number, input: { note: string }): Promise<HoldView> {
      const note = auditText(input.note, 'note');
      const by = userOf(scope)?.userId ?? null;
      const { hold, node } = await db.transaction(async (tx) => {
        const hold = await repo.releaseHold(tx, scope, id, { releasedBy: by, releasedAt: clock(), releaseNote: note });
        if (!hold) {
          throw (await repo.findHold(tx, scope, id)) ? driveErrors.holdReleased() : driveErrors.holdNotFound();
        }
        const node = (await nodes.findNode(tx, scope, hold.nodeId)) as nodes.NodeRow;
        await activities.record(tx, scope, [
          { spaceId: node.spaceId, nodeId: node.id, action: 'hold.release', detail: { holdId: hold.id, note } },
        ]);
        return { hold, node };
      });
      await announce(scope, node, 'released');
      return toHoldView(hold, node, await userNames(scope, [hold.placedBy, hold.releasedBy]));
    },

    async list(scope: Scope, q: PageRequest & { spaceId?: number; active?: boolean }) {
      const page = await repo.holdPage(db, scope, { spaceId: q.spaceId, active: q.active }, q);
      const names = await userNames(
        scope,
        page.list.flatMap((r) => [r.hold.placedBy, r.hold.releasedBy]),
      );
      return {
        ...page,
        list: page.list.map((r) => toHoldView(r.hold, { name: r.nodeName, deletedAt: r.nodeDeletedAt }, names)),
      };
    },
  };
}

export type HoldsService = ReturnType<typeof createHoldsService>;
