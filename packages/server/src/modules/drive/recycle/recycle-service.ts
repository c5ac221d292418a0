import { type Scope, systemScope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { onUniqueViolation } from '../../../platform/db/sql.ts';
import { AppError } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { assertWritable, liveLock } from '../nodes/locks.ts';
import { freeName } from '../nodes/naming.ts';
import * as nodes from '../nodes/node-repository.ts';
import type { DriveOperation } from '../roles.ts';
import type { DriveSettings } from '../settings.ts';
import { findSpace } from '../spaces/space-repository.ts';
import type { HoldsService } from './holds-service.ts';
import * as repo from './recycle-repository.ts';

/**
 * Delete, the recycle bin and its retention (spec §3.5). A delete moves a subtree to the bin in
 * one transaction (refused while a legal hold reaches it or another user's lock is live in it); a
 * restore brings one bin entry back to its original folder, or to the space root when that folder
 * is gone, renaming it `name (1).ext` next to a live namesake; a purge removes an entry for good,
 * its versions' files released for the collector. Nothing ever purges trash to make room.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Trash roots purged per transaction by empty and retention. */
const PURGE_BATCH = 200;

export type RecycleItemView = ReturnType<typeof toRecycleItemView>;

export function toRecycleItemView(
  node: nodes.NodeRow,
  more: {
    bytes: number;
    deletedByName: string | null;
    originalPath: string;
    restoresToOriginal: boolean;
    retentionDays: number;
    held: boolean;
  },
) {
  const deletedAt = node.deletedAt as Date;
  return {
    id: node.id,
    spaceId: node.spaceId,
    name: node.name,
    type: node.type,
    size: node.type === 'file' ? node.size : more.bytes,
    deletedAt,
    deletedBy: node.deletedBy,
    deletedByName: more.deletedByName,
    originalParentId: node.parentId,
    originalPath: more.originalPath,
    restoresToOriginal: more.restoresToOriginal,
    expiresAt: more.retentionDays === 0 ? null : new Date(deletedAt.getTime() + more.retentionDays * DAY_MS),
    held: more.held,
  };
}

const byDepth = (a: nodes.NodeRow, b: nodes.NodeRow) => a.ancestorIds.length - b.ancestorIds.length || a.id - b.id;

export function createRecycleService(core: DriveCore, deps: { holds: HoldsService }) {
  const { db, clock, access, activities, versions, usage, directory } = core;
  const { holds } = deps;
  const retentionDays = async (tenantId: number | null) =>
    (await core.settings.effective<DriveSettings>('drive', tenantId)).recycleRetentionDays;

  /** Each id through the role gate; the ids not found (or not in the expected state) are one 404 naming them. */
  async function authorizeAll(c: DriveCaller, ids: number[], op: DriveOperation, deleted: boolean) {
    const found: nodes.NodeRow[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      try {
        found.push((await access.authorizeNode(c, id, op, { deleted })).node);
      } catch (err) {
        if (!(err instanceof AppError && err.key === 'drive.node_not_found')) throw err;
        missing.push(id);
      }
    }
    if (missing.length) throw driveErrors.nodesNotFound(missing);
    return found;
  }

  /** Bin entries only: a node inside a deleted folder comes back or goes with its folder. */
  async function trashRootsOf(c: DriveCaller, ids: number[], op: DriveOperation) {
    const found = await authorizeAll(c, ids, op, true);
    if (found.some((n) => n.trashRootId !== n.id)) throw driveErrors.notInRecycleBin();
    return found.sort(byDepth);
  }

  /**
   * Purges trash roots inside the caller's transaction: their trees locked, the ones still in
   * the bin kept, holds refused (`refuse`, a manual purge) or skipped (`skip`, empty and
   * retention), then each root's nodes: versions (references dropped, bytes released), released
   * holds, rows, and a `node.purge` activity.
   */
  async function purgeRoots(
    tx: Db,
    scope: Scope,
    roots: nodes.NodeRow[],
    opts: { held: 'refuse' | 'skip'; reason: 'manual' | 'empty' | 'retention' },
  ) {
    const tree = await repo.lockTrees(
      tx,
      scope,
      roots.map((r) => r.id),
    );
    const inBin = tree.filter(
      (n) => n.deletedAt !== null && n.trashRootId === n.id && roots.some((r) => r.id === n.id),
    );
    const ids = inBin.map((n) => n.id);
    if (opts.held === 'refuse') {
      const gone = roots.filter((r) => !ids.includes(r.id)).map((r) => r.id);
      if (gone.length) throw driveErrors.nodesNotFound(gone);
      await holds.assertNotHeld(tx, scope, ids);
    }
    const held = opts.held === 'refuse' ? new Set<number>() : await holds.heldIds(tx, scope, ids);
    const purged: { root: nodes.NodeRow; bytes: number }[] = [];
    for (const root of inBin.filter((n) => !held.has(n.id))) {
      const members = tree.filter((n) => n.trashRootId === root.id).map((n) => n.id);
      const bytes = await versions.purge(tx, scope, root.spaceId, members);
      await repo.deleteNodes(tx, members);
      await activities.record(tx, scope, [
        {
          spaceId: root.spaceId,
          nodeId: root.id,
          action: 'node.purge',
          detail: { name: root.name, type: root.type, nodes: members.length, bytes, reason: opts.reason },
        },
      ]);
      purged.push({ root, bytes });
    }
    return { purged, skippedHeld: held.size };
  }

  /** After a purge commits: usage fell, so a quota warning is re-armed. */
  async function settled(scope: Scope, spaceIds: Iterable<number>) {
    for (const id of new Set(spaceIds)) await usage.checkWarning(scope, id);
  }

  /** Empty and retention: trash roots claimed in batches, each batch its own transaction. */
  async function purgeInBatches(
    scope: Scope,
    q: { spaceId?: number; deletedBefore?: Date },
    reason: 'empty' | 'retention',
  ) {
    let afterId = 0;
    let purged = 0;
    let skippedHeld = 0;
    const spaces = new Set<number>();
    for (;;) {
      const batch = await db.transaction(async (tx) => {
        const claimed = await repo.claimTrashRoots(tx, scope, { ...q, afterId, limit: PURGE_BATCH });
        return { claimed, ...(await purgeRoots(tx, scope, claimed, { held: 'skip', reason })) };
      });
      purged += batch.purged.length;
      skippedHeld += batch.skippedHeld;
      for (const p of batch.purged) spaces.add(p.root.spaceId);
      if (batch.claimed.length < PURGE_BATCH) break;
      afterId = (batch.claimed.at(-1) as nodes.NodeRow).id;
    }
    await settled(scope, spaces);
    return { purged, skippedHeld };
  }

  return {
    /**
     * Moves nodes to the recycle bin, all or nothing. A node inside another chosen folder goes
     * with that folder (it is not an entry of its own).
     */
    async remove(scope: Scope, ids: number[]) {
      const c = await access.caller(scope);
      const found = await authorizeAll(c, ids, 'delete', false);
      const chosen = new Set(ids);
      const roots = found.filter((n) => !n.ancestorIds.some((a) => chosen.has(a))).sort(byDepth);
      const now = clock();
      await db.transaction(async (tx) => {
        const tree = await repo.lockTrees(
          tx,
          scope,
          roots.map((r) => r.id),
        );
        const gone = roots.filter((r) => !tree.some((n) => n.id === r.id && n.deletedAt === null)).map((r) => r.id);
        if (gone.length) throw driveErrors.nodesNotFound(gone);
        await holds.assertNotHeld(
          tx,
          scope,
          roots.map((r) => r.id),
        );
        const locked = tree.find((n) => n.deletedAt === null && liveLock(n, now) && n.lockUserId !== c.userId);
        if (locked) await assertWritable(locked, c.userId, now, (id) => access.userName(scope, id));
        const entries = [];
        for (const root of roots) {
          const count = await repo.softDelete(tx, scope, root.id, c.userId, now);
          entries.push({
            spaceId: root.spaceId,
            nodeId: root.id,
            action: 'node.delete',
            detail: { name: root.name, type: root.type, parentId: root.parentId, nodes: count },
          });
        }
        await activities.record(tx, scope, entries);
      });
      return { deleted: ids.length };
    },

    /** A space's recycle bin: the entries the caller may browse, newest first. */
    async list(scope: Scope, q: PageRequest & { spaceId: number }) {
      const c = await access.caller(scope);
      const space = await findSpace(db, scope, q.spaceId);
      if (!space) throw driveErrors.spaceNotFound();
      const page = await repo.trashPage(db, scope, space.id, await access.listingAccess(c, space), q);
      const rows = page.list.map((r) => r.node);
      const ancestors = new Map(
        (await nodes.findNodes(db, scope, [...new Set(rows.flatMap((n) => n.ancestorIds))])).map((a) => [a.id, a]),
      );
      const held = await holds.heldIds(
        db,
        scope,
        rows.map((n) => n.id),
      );
      const deleters = [...new Set(rows.map((n) => n.deletedBy).filter((id): id is number => id !== null))];
      const names = new Map(
        (
          await directory.describeSubjects(
            scope.tenantId,
            deleters.map((id) => ({ type: 'user' as const, id })),
          )
        ).map((s) => [s.id, s.name]),
      );
      const days = await retentionDays(space.tenantId);
      return {
        ...page,
        list: page.list.map(({ node, bytes }) => {
          const parent = node.parentId === null ? null : (ancestors.get(node.parentId) ?? null);
          return toRecycleItemView(node, {
            bytes,
            deletedByName: node.deletedBy === null ? null : (names.get(node.deletedBy) ?? `user #${node.deletedBy}`),
            // a purged ancestor's name is gone: shown as …
            originalPath: `/${node.ancestorIds.map((id) => ancestors.get(id)?.name ?? '…').join('/')}`,
            restoresToOriginal: node.parentId === null || parent?.deletedAt === null,
            retentionDays: days,
            held: held.has(node.id),
          });
        }),
      };
    },

    /**
     * Restores bin entries, shallowest first (an entry whose folder is restored by the same
     * request goes back into it): into the original folder when it is live, else the space root.
     */
    async restore(scope: Scope, ids: number[]) {
      const c = await access.caller(scope);
      const roots = await trashRootsOf(c, ids, 'restore');
      const now = clock();
      return db.transaction(async (tx) => {
        const restored: { id: number; parentId: number | null; name: string }[] = [];
        const details = [];
        // the entries' trees and their folders locked at once, in the order every write locks in
        const parentIds = roots.flatMap((r) => (r.parentId === null ? [] : [r.parentId]));
        await repo.lockTrees(
          tx,
          scope,
          roots.map((r) => r.id),
          parentIds,
        );
        for (const root of roots) {
          // read after the earlier entries of this request came back: a folder may be one of them
          const node = await nodes.findNode(tx, scope, root.id);
          if (!node || node.deletedAt === null || node.trashRootId !== node.id)
            throw driveErrors.nodesNotFound([root.id]);
          const parent = node.parentId === null ? null : await nodes.findNode(tx, scope, node.parentId);
          const target = parent && parent.deletedAt === null && parent.spaceId === node.spaceId ? parent : null;
          const name = await freeName(tx, node.spaceId, target?.id ?? null, node.name, node.type === 'folder');
          if (name !== node.name) await repo.renameNode(tx, node.id, name);
          await onUniqueViolation(repo.restoreTrash(tx, node.id), () => driveErrors.nameTaken(name));
          await nodes.rewriteSubtree(
            tx,
            node,
            {
              parentId: target?.id ?? null,
              ...nodes.treeColumnsUnder(target, node.id, node.inheritPermissions),
              inheritPermissions: node.inheritPermissions,
            },
            now,
          );
          restored.push({ id: node.id, parentId: target?.id ?? null, name });
          details.push({
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'node.restore',
            detail: {
              name,
              parentId: target?.id ?? null,
              originalParentId: node.parentId,
              ...(name !== node.name ? { renamedFrom: node.name } : {}),
            },
          });
        }
        await activities.record(tx, scope, details);
        return { restored };
      });
    },

    /** Purges bin entries for good (manager); refused while a legal hold reaches any of them. */
    async purge(scope: Scope, ids: number[]) {
      const c = await access.caller(scope);
      const roots = await trashRootsOf(c, ids, 'purge');
      const result = await db.transaction((tx) => purgeRoots(tx, scope, roots, { held: 'refuse', reason: 'manual' }));
      await settled(
        scope,
        result.purged.map((p) => p.root.spaceId),
      );
      return { purged: result.purged.length };
    },

    /** Empties a space's recycle bin (manager): every entry no legal hold reaches. */
    async empty(scope: Scope, spaceId: number) {
      const c = await access.caller(scope);
      await access.authorizeSpace(c, spaceId, 'purge');
      return purgeInBatches(scope, { spaceId }, 'empty');
    },

    /** System task `drive.recycleRetention`: entries older than each tenant's recycleRetentionDays (0 = forever). */
    async purgeExpired(now: Date) {
      let purged = 0;
      let skippedHeld = 0;
      for (const tenantId of await repo.tenantsWithTrash(db)) {
        const days = await retentionDays(tenantId);
        if (days === 0) continue;
        const r = await purgeInBatches(
          systemScope(tenantId),
          { deletedBefore: new Date(now.getTime() - days * DAY_MS) },
          'retention',
        );
        purged += r.purged;
        skippedHeld += r.skippedHeld;
      }
      return { purged, skippedHeld };
    },
  };
}

export type RecycleService = ReturnType<typeof createRecycleService>;
