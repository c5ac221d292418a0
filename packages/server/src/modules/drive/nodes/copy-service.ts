import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { OPERATION_ROLE, roleRank } from '../roles.ts';
import { rankIn } from './listing-repository.ts';
import { assertNotInto, authorizeTreeOp, type Target, type TreeOpInput } from './move-service.ts';
import { freeName } from './naming.ts';
import type { NodeRow } from './node-repository.ts';
import * as nodes from './node-repository.ts';
import { type Conflict, NAME_TRIES } from './nodes-service.ts';
import * as tree from './tree-repository.ts';
import type { NodeViewService } from './view-service.ts';

/**
 * POST /api/drive/nodes/copy: deep copies in one transaction. A copied file gets a new node whose
 * one version references the same managed file (no bytes copied; its size is charged to the
 * target space, 413 when the whole copy does not fit, and then nothing is created). Only the
 * current version is copied; grants are not (a copy takes the permissions of where it lands, like
 * a new upload). Descendants the caller may not copy themselves (below editor, behind a break of
 * inheritance) are left out with what is under them, so a copy never widens anyone's access.
 */
// About 4 ms a file on a busy test machine (a node, a version, a reference): 1,000 keep a copy
// within seconds and one transaction; larger copies want a background task.
export const MAX_COPY_NODES = 1_000;

/** A node to copy: its source, the source of its parent (null for a top) and the top it is under. */
export type Planned = { source: NodeRow; parentSourceId: number | null; topId: number };

/**
 * What a copy creates: the tops and, parents first, the descendants `include` admits under an
 * admitted parent (one left out takes what is under it out too). `omitted` counts those left out.
 */
export function planCopy<N extends NodeRow>(tops: NodeRow[], below: N[], include: (n: N) => boolean) {
  const plan: Planned[] = tops.map((n) => ({ source: n, parentSourceId: null, topId: n.id }));
  const topOf = new Map(tops.map((n) => [n.id, n.id]));
  let omitted = 0;
  for (const n of below) {
    const topId = n.parentId === null ? undefined : topOf.get(n.parentId);
    if (topId === undefined || !include(n)) {
      omitted++;
      continue;
    }
    plan.push({ source: n, parentSourceId: n.parentId, topId });
    topOf.set(n.id, topId);
  }
  return { plan, omitted };
}

export type SubtreeCopy = {
  tops: NodeRow[];
  plan: Planned[];
  target: Target;
  conflict: Conflict;
  /** the owner of the copies */
  userId: number;
  /** more detail on each top's node.copy activity */
  detail?: Record<string, unknown>;
  /** runs first inside the copy's transaction: what must hold (or be counted) with the copy or not at all */
  within?: (tx: Db) => Promise<void>;
};

/**
 * Copies a planned subtree by managed-file references in one transaction (node copy and a share
 * link's save to my drive): the target folder stays live, the whole size is charged to the
 * target space first (413: nothing is created), each file gets one version referencing the same
 * managed file, and each top a node.copy activity.
 */
export function createSubtreeCopier(core: DriveCore) {
  const { db, usage, versions, activities } = core;

  const copyRow = (source: NodeRow, target: Target, name: string, by: number): nodes.NewNode => ({
    spaceId: target.space.id,
    type: source.type,
    name,
    createdBy: by,
    updatedBy: by,
  });

  /** Inserts the copy of a top source under the target; keeping both, the first free name. null: skipped. */
  async function placeTop(tx: Db, scope: Scope, source: NodeRow, target: Target, conflict: Conflict, by: number) {
    const parentId = target.parent?.id ?? null;
    for (let attempt = 1; ; attempt++) {
      const taken = await nodes.liveSibling(tx, target.space.id, parentId, source.name);
      let name = source.name;
      if (taken) {
        if (conflict === 'fail') throw driveErrors.nameTaken(taken.name);
        if (conflict === 'skip') return null;
        name = await freeName(tx, target.space.id, parentId, source.name, source.type === 'folder');
      }
      try {
        return await tx.transaction((sp) =>
          nodes.insertNode(sp, scope, target.parent, copyRow(source, target, name, by)),
        );
      } catch (err) {
        // a sibling of that name appeared meanwhile: decide again
        if (!isUniqueViolation(err) || attempt >= NAME_TRIES) throw err;
      }
    }
  }

  return async function copySubtree(scope: Scope, input: SubtreeCopy) {
    const { tops, plan, target, conflict, userId } = input;
    const versionIds = plan.flatMap((p) =>
      p.source.type === 'file' && p.source.currentVersionId ? [p.source.currentVersionId] : [],
    );
    // the sources' versions live in the sources' tenant, which is the target's (no copy crosses tenants)
    const current = new Map((await tree.versionsByIds(db, scope, versionIds)).map((v) => [v.id, v]));
    const versionOf = (n: NodeRow) => (n.currentVersionId === null ? undefined : current.get(n.currentVersionId));

    const out = await db.transaction(async (tx) => {
      if (input.within) await input.within(tx);
      let parent: NodeRow | null = null;
      if (target.parent) {
        // the target folder stays live until this commits (a delete waits)
        [parent = null] = await tree.lockNodes(tx, scope, [target.parent.id]);
        if (!parent || parent.deletedAt !== null) throw driveErrors.nodeNotFound();
      }
      const to: Target = { space: target.space, parent };
      for (const n of tops) assertNotInto(n, to);
      // the tops first: their names decide what is skipped, and a skipped top takes its subtree out
      const copies = new Map<number, NodeRow>();
      const skippedIds: number[] = [];
      for (const top of tops) {
        const copy = await placeTop(tx, scope, top, to, conflict, userId);
        if (copy) copies.set(top.id, copy);
        else skippedIds.push(top.id);
      }
      const rows = plan.filter((p) => copies.has(p.topId));
      const perTop = new Map<number, { nodes: number; bytes: number }>();
      for (const p of rows) {
        const t = perTop.get(p.topId) ?? { nodes: 0, bytes: 0 };
        t.nodes++;
        t.bytes += versionOf(p.source)?.size ?? 0;
        perTop.set(p.topId, t);
      }
      const bytes = [...perTop.values()].reduce((sum, t) => sum + t.bytes, 0);
      // all the bytes at once, before any row: a copy that does not fit fails fast and whole
      if (bytes > 0) await usage.charge(tx, to.space, bytes);
      for (const p of rows) {
        let copy = copies.get(p.source.id);
        if (!copy) {
          const under = copies.get(p.parentSourceId as number) as NodeRow;
          copy = await nodes.insertNode(tx, scope, under, copyRow(p.source, to, p.source.name, userId));
          copies.set(p.source.id, copy);
        }
        const v = versionOf(p.source);
        if (v) {
          const file = { id: v.fileId, size: v.size, mime: v.mime, sha256: v.sha256 };
          await versions.append(tx, scope, to.space, copy, file, { fromUpload: false, charged: true });
        }
      }
      const copied = tops.filter((t) => copies.has(t.id));
      await activities.record(
        tx,
        scope,
        copied.map((source) => ({
          spaceId: to.space.id,
          nodeId: (copies.get(source.id) as NodeRow).id,
          action: 'node.copy',
          detail: { sourceId: source.id, sourceSpaceId: source.spaceId, ...perTop.get(source.id), ...input.detail },
        })),
      );
      const created = copied.map((t) => copies.get(t.id) as NodeRow);
      return { created, skippedIds, nodeCount: rows.length, bytes };
    });
    if (out.bytes > 0) await usage.checkWarning(scope, target.space.id);
    return out;
  };
}

export type SubtreeCopier = ReturnType<typeof createSubtreeCopier>;

export function createCopyService(core: DriveCore, views: NodeViewService, copySubtree: SubtreeCopier) {
  const { db, access } = core;
  const copyRank = roleRank(OPERATION_ROLE.copy);

  return {
    async copy(scope: Scope, input: TreeOpInput) {
      const conflict = input.conflict ?? 'keepBoth';
      const c = await access.caller(scope);
      const { sourceSpace, tops, target } = await authorizeTreeOp(core, c, input, 'copy');
      const a = await views.accessIn(c, [sourceSpace]);
      const folders = tops.filter((n) => n.type === 'folder').map((n) => n.id);
      const below = await tree.liveDescendants(db, scope, folders, rankIn(a), MAX_COPY_NODES + 1);
      if (tops.length + below.length > MAX_COPY_NODES)
        throw httpErrors.invalidField('ids', `a copy may create at most ${MAX_COPY_NODES} nodes`);
      // what the caller may copy: a descendant they are editor on, under a copied parent
      const { plan, omitted } = planCopy(tops, below, (n) => n.rank >= copyRank);
      const out = await copySubtree(scope, { tops, plan, target, conflict, userId: c.userId });
      return {
        created: await views.byIds(
          c,
          target.space,
          out.created.map((n) => n.id),
        ),
        skippedIds: out.skippedIds,
        nodeCount: out.nodeCount,
        omitted,
      };
    },
  };
}

export type CopyService = ReturnType<typeof createCopyService>;
