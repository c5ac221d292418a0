import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import { freeName } from './naming.ts';
import type { NodeRow } from './node-repository.ts';
import * as nodes from './node-repository.ts';
import { type Conflict, NAME_TRIES } from './nodes-service.ts';
import * as tree from './tree-repository.ts';
import type { NodeViewService } from './view-service.ts';

/**
 * Move and copy share their checks: the sources (one space; a source under another source goes
 * with it), the target folder or space root the caller may create in, and never a folder into
 * itself or its subtree.
 */
export type TreeOpInput = {
  ids: number[];
  targetSpaceId?: number;
  targetParentId: number | null;
  conflict?: Conflict;
};

export type Target = { space: SpaceRow; parent: NodeRow | null };

export async function authorizeTreeOp(
  core: Pick<DriveCore, 'access'>,
  c: DriveCaller,
  input: TreeOpInput,
  op: 'move' | 'copy',
) {
  const sources: NodeRow[] = [];
  let sourceSpace: SpaceRow | null = null;
  for (const id of input.ids) {
    const { node, space } = await core.access.authorizeNode(c, id, op);
    if (sourceSpace && space.id !== sourceSpace.id) throw driveErrors.crossSpace();
    sourceSpace = space;
    sources.push(node);
  }
  const from = sourceSpace as SpaceRow;
  let target: Target;
  if (input.targetParentId !== null) {
    target = await authorizeTargetFolder(core, c, input.targetParentId);
    if (input.targetSpaceId !== undefined && input.targetSpaceId !== target.space.id)
      throw httpErrors.invalidField('targetSpaceId', 'is not the space of targetParentId');
  } else {
    target = {
      space: (await core.access.authorizeSpace(c, input.targetSpaceId ?? from.id, 'create')).space,
      parent: null,
    };
  }
  const ids = new Set(input.ids);
  // a source under another source travels with it
  const tops = sources.filter((n) => !n.ancestorIds.some((a) => ids.has(a)));
  for (const n of tops) assertNotInto(n, target);
  return { sourceSpace: from, tops, target };
}

/** A folder the caller may create in (editor or above; `targetParentId` names it). */
export async function authorizeTargetFolder(
  core: Pick<DriveCore, 'access'>,
  c: DriveCaller,
  targetParentId: number,
): Promise<Target> {
  const { node, space } = await core.access.authorizeNode(c, targetParentId, 'create');
  if (node.type !== 'folder') throw driveErrors.notAFolder('targetParentId');
  return { space, parent: node };
}

/** Refuses a node into itself or its own subtree (400 drive.move_into_subtree). */
export function assertNotInto(node: NodeRow, target: Target) {
  const p = target.parent;
  if (p && p.spaceId === node.spaceId && (p.id === node.id || p.ancestorIds.includes(node.id)))
    throw driveErrors.moveIntoItself();
}

/**
 * POST /api/drive/nodes/move: all sources in one transaction, with their subtrees; grants,
 * versions and holds go along; a move to another space charges the subtree's bytes (every
 * version) there (413 when they do not fit: nothing moves) and gives them back to the source.
 */
export function createMoveService(core: DriveCore, views: NodeViewService) {
  const { db, access, activities, usage, clock } = core;

  /** Places `node` under the target as `name`, or keeping both the first free name; null: skipped. */
  async function place(tx: Db, node: NodeRow, target: Target, name: string, conflict: Conflict, now: Date) {
    const parentId = target.parent?.id ?? null;
    for (let attempt = 1; ; attempt++) {
      const taken = await nodes.liveSibling(tx, target.space.id, parentId, name);
      let candidate = name;
      if (taken) {
        if (conflict === 'fail') throw driveErrors.nameTaken(taken.name);
        if (conflict === 'skip') return null;
        candidate = await freeName(tx, target.space.id, parentId, name, node.type === 'folder');
      }
      try {
        await tx.transaction((sp) =>
          nodes.rewriteSubtree(
            sp,
            node,
            {
              ...nodes.treeColumnsUnder(target.parent, node.id, node.inheritPermissions),
              parentId,
              inheritPermissions: node.inheritPermissions,
              ...(target.space.id !== node.spaceId ? { spaceId: target.space.id } : {}),
              ...(candidate !== node.name ? { name: candidate } : {}),
            },
            now,
          ),
        );
        return candidate;
      } catch (err) {
        // a sibling of that name appeared meanwhile: decide again
        if (!isUniqueViolation(err) || attempt >= NAME_TRIES) throw err;
      }
    }
  }

  return {
    async move(scope: Scope, input: TreeOpInput) {
      const conflict = input.conflict ?? 'fail';
      const c = await access.caller(scope);
      const { sourceSpace, tops, target } = await authorizeTreeOp(core, c, input, 'move');
      const cross = target.space.id !== sourceSpace.id;
      const now = clock();
      const out = await db.transaction(async (tx) => {
        const topIds = tops.map((n) => n.id);
        const locked = new Map(
          (await tree.lockNodes(tx, scope, [...topIds, ...(target.parent ? [target.parent.id] : [])])).map((n) => [
            n.id,
            n,
          ]),
        );
        let parent: NodeRow | null = null;
        if (target.parent) {
          parent = locked.get(target.parent.id) ?? null;
          if (!parent || parent.deletedAt !== null) throw driveErrors.nodeNotFound();
        }
        const to: Target = { space: target.space, parent };
        const subtree = await tree.subtreeOf(tx, scope, topIds);
        const moved: number[] = [];
        const changed = new Set<number>();
        const skippedIds: number[] = [];
        const entries = [];
        for (const id of topIds) {
          const node = locked.get(id);
          if (!node || node.deletedAt !== null || node.spaceId !== sourceSpace.id) throw driveErrors.nodeNotFound();
          assertNotInto(node, to);
          // already there: nothing to do
          if (!cross && node.parentId === (parent?.id ?? null)) {
            moved.push(id);
            continue;
          }
          const name = await place(tx, node, to, node.name, conflict, now);
          if (name === null) {
            skippedIds.push(id);
            continue;
          }
          moved.push(id);
          changed.add(id);
          entries.push({
            spaceId: to.space.id,
            nodeId: id,
            action: 'node.move',
            detail: {
              from: { spaceId: node.spaceId, parentId: node.parentId },
              to: { spaceId: to.space.id, parentId: parent?.id ?? null },
              ...(name !== node.name ? { name: { from: node.name, to: name } } : {}),
            },
          });
        }
        const movedIds = subtree
          .filter((r) => changed.has(r.id) || r.ancestorIds.some((a) => changed.has(a)))
          .map((r) => r.id);
        const lock = await tree.lockedByOther(tx, movedIds, c.userId, now);
        if (lock)
          throw driveErrors.locked(await access.userName(scope, lock.lockUserId as number), lock.lockExpiresAt as Date);
        if (cross && movedIds.length) {
          const bytes = await tree.versionBytes(tx, movedIds);
          if (bytes > 0) {
            await usage.charge(tx, target.space, bytes);
            await usage.release(tx, sourceSpace.id, bytes);
          }
          await tree.carryToSpace(tx, movedIds, target.space.id);
        }
        await activities.record(tx, scope, entries);
        return { moved, skippedIds, changed: changed.size };
      });
      if (cross && out.changed) {
        await usage.checkWarning(scope, target.space.id);
        await usage.checkWarning(scope, sourceSpace.id);
      }
      return { moved: await views.byIds(c, target.space, out.moved), skippedIds: out.skippedIds };
    },
  };
}

export type MoveService = ReturnType<typeof createMoveService>;
