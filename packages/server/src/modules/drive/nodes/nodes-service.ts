import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { isUniqueViolation, onUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { checkName } from '../../files/index.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import type { DriveSettings } from '../settings.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import * as spaces from '../spaces/space-repository.ts';
import * as listing from './listing-repository.ts';
import { assertWritable } from './locks.ts';
import { checkNodeName, freeName } from './naming.ts';
import type { NodeRow } from './node-repository.ts';
import * as nodes from './node-repository.ts';
import { toNodeViews, userNames } from './node-view.ts';
import * as stars from './stars-repository.ts';
import * as tree from './tree-repository.ts';
import type { NodeViewService } from './view-service.ts';

/**
 * The node tree's reads and single-node writes (spec §4.3): a folder's content, one node with its
 * path, new folders, rename, stars and the personal views. Every write passes the access gate
 * (§5.5) and records its activity in its transaction.
 */
export type Conflict = 'keepBoth' | 'skip' | 'fail';

/** Tries of a keep-both name when concurrent writers take the free one first. */
export const NAME_TRIES = 5;

export type ListQuery = PageRequest & {
  spaceId: number;
  parentId?: number;
  sort?: listing.ChildSort;
  order?: listing.SortOrder;
};

export function createNodesService(core: DriveCore, views: NodeViewService) {
  const { db, access, activities, directory, clock } = core;

  /** A folder the caller may `op` in: the node, or the space root (parentId null). */
  async function folderFor(c: DriveCaller, spaceId: number, parentId: number | null, op: 'browse' | 'create') {
    if (parentId === null) return { space: (await access.authorizeSpace(c, spaceId, op)).space, parent: null };
    const { node, space } = await access.authorizeNode(c, parentId, op);
    if (node.spaceId !== spaceId) throw httpErrors.invalidField('parentId', `is not a folder of space ${spaceId}`);
    if (node.type !== 'folder') throw driveErrors.notAFolder('parentId');
    return { space, parent: node };
  }

  /** The root of a space lists for anyone with a role there or a grant somewhere in it; others do not see the space. */
  async function rootSpace(c: DriveCaller, spaceId: number) {
    const space = await spaces.findSpace(db, c.scope, spaceId);
    if (!space) throw driveErrors.spaceNotFound();
    const a = await views.accessIn(c, [space]);
    if (
      (a.spaceRanks.get(space.id) ?? 0) === 0 &&
      !(await listing.hasGrantInSpace(db, c.scope, space.id, c.set, a.now))
    )
      throw driveErrors.spaceNotFound();
    return { space, a };
  }

  /** A listing's queries, in one read transaction without JIT (listing-repository's withoutJit). */
  const read = <T>(fn: (tx: Db) => Promise<T>) =>
    db.transaction(async (tx) => {
      await listing.withoutJit(tx);
      return fn(tx);
    });

  const viewsOf = <R extends listing.NodeViewRow>(c: DriveCaller, rows: R[], now: Date) =>
    toNodeViews(directory, c.scope.tenantId, rows, now);

  async function viewOf(c: DriveCaller, space: SpaceRow, id: number) {
    const [view] = await views.byIds(c, space, [id]);
    if (!view) throw driveErrors.nodeNotFound();
    return view;
  }

  /**
   * Inserts a folder under `parent` named `name` or, keeping both, the first free "name (n)": the
   * unique index of sibling names decides races, each try in a savepoint.
   */
  async function insertFolder(tx: Db, scope: Scope, space: SpaceRow, parent: NodeRow | null, name: string, by: number) {
    for (let attempt = 1; ; attempt++) {
      const candidate = await freeName(tx, space.id, parent?.id ?? null, name, true);
      try {
        return await tx.transaction((sp) =>
          nodes.insertNode(sp, scope, parent, {
            spaceId: space.id,
            type: 'folder',
            name: candidate,
            createdBy: by,
            updatedBy: by,
          }),
        );
      } catch (err) {
        if (!isUniqueViolation(err) || attempt >= NAME_TRIES) throw err;
      }
    }
  }

  return {
    /** A folder's live children the caller may browse: folders first, then the sort. */
    async list(scope: Scope, q: ListQuery) {
      const c = await access.caller(scope);
      let a: listing.ListingAccess;
      if (q.parentId !== undefined) {
        const { space } = await folderFor(c, q.spaceId, q.parentId, 'browse');
        a = await views.accessIn(c, [space]);
      } else {
        a = (await rootSpace(c, q.spaceId)).a;
      }
      const page = await read((tx) =>
        listing.childrenPage(tx, scope, c.userId, a, {
          spaceId: q.spaceId,
          parentId: q.parentId ?? null,
          sort: q.sort ?? 'name',
          order: q.order ?? 'asc',
          page: q.page,
          pageSize: q.pageSize,
        }),
      );
      return { ...page, list: await viewsOf(c, page.list, a.now) };
    },

    /** One node with the path above it; opening a file counts as a recent access. */
    async get(scope: Scope, id: number) {
      const c = await access.caller(scope);
      const { node, space, role } = await access.authorizeNode(c, id, 'browse');
      const a = await views.accessIn(c, [space]);
      const [row] = await listing.nodeViewRows(db, scope, c.userId, a, [id]);
      if (!row) throw driveErrors.nodeNotFound();
      const [view] = await viewsOf(c, [row], a.now);
      const above = new Map((await listing.ancestorsOf(db, scope, a, node.ancestorIds)).map((r) => [r.id, r]));
      // from the parent up, until the first folder the caller may not browse
      const path: { id: number; name: string }[] = [];
      for (const ancestorId of [...node.ancestorIds].reverse()) {
        const r = above.get(ancestorId);
        if (!r?.visible) break;
        path.unshift({ id: r.id, name: r.name });
      }
      if (node.type === 'file') await nodes.touchRecent(db, scope, c.userId, node.id, clock());
      return { ...(view as NonNullable<typeof view>), myRole: role, path };
    },

    /** A new folder; a same-named live sibling is kept beside (default), skipped, or refused. */
    async createFolder(
      scope: Scope,
      input: { spaceId: number; parentId?: number | null; name: string; conflict?: Conflict },
    ) {
      const name = checkNodeName(input.name);
      const conflict = input.conflict ?? 'keepBoth';
      const c = await access.caller(scope);
      const { space, parent } = await folderFor(c, input.spaceId, input.parentId ?? null, 'create');
      const result = await db.transaction(async (tx) => {
        let under: NodeRow | null = null;
        if (parent) {
          // the parent stays live until this commits (a delete waits)
          const [fresh] = await tree.lockNodes(tx, scope, [parent.id]);
          if (!fresh || fresh.deletedAt !== null) throw driveErrors.nodeNotFound();
          under = fresh;
        }
        const existing = await nodes.liveSibling(tx, space.id, under?.id ?? null, name);
        if (existing && conflict === 'fail') throw driveErrors.nameTaken(existing.name);
        if (existing && conflict === 'skip') {
          if (existing.type !== 'folder') throw driveErrors.nameTaken(existing.name);
          return { id: existing.id, skipped: true };
        }
        const created =
          conflict === 'fail'
            ? await onUniqueViolation(
                tx.transaction((sp) =>
                  nodes.insertNode(sp, scope, under, {
                    spaceId: space.id,
                    type: 'folder',
                    name,
                    createdBy: c.userId,
                    updatedBy: c.userId,
                  }),
                ),
                () => driveErrors.nameTaken(name),
              )
            : await insertFolder(tx, scope, space, under, name, c.userId);
        await activities.record(tx, scope, [
          {
            spaceId: space.id,
            nodeId: created.id,
            action: 'node.create',
            detail: { type: 'folder', name: created.name },
          },
        ]);
        return { id: created.id, skipped: false };
      });
      const folderView = await viewOf(c, space, result.id);
      // skip answers the folder only to someone who may see it
      if (result.skipped && folderView.myRole === null) throw driveErrors.nameTaken(folderView.name);
      return { ...folderView, skipped: result.skipped };
    },

    /** Renames a node; a live sibling of the name (any case) is a 409, another user's live lock a 423. */
    async rename(scope: Scope, id: number, rawName: string) {
      const name = checkNodeName(rawName);
      const c = await access.caller(scope);
      const { space, node: current } = await access.authorizeNode(c, id, 'rename');
      if (current.type === 'file') {
        // a file cannot become what an upload may not be (`report.pdf` → `report.exe`)
        const { blockedExtensions } = await core.settings.effective<DriveSettings>('drive', scope.tenantId);
        checkName(name, { mimeAllowList: null, blockedExtensions }, 'name');
      }
      const now = clock();
      await onUniqueViolation(
        () =>
          db.transaction(async (tx) => {
            const [node] = await tree.lockNodes(tx, scope, [id]);
            if (!node || node.deletedAt !== null) throw driveErrors.nodeNotFound();
            await assertWritable(node, c.userId, now, (u) => access.userName(scope, u));
            if (node.name === name) return;
            await tree.setName(tx, id, name, c.userId, now);
            await activities.record(tx, scope, [
              { spaceId: node.spaceId, nodeId: id, action: 'node.rename', detail: { from: node.name, to: name } },
            ]);
          }),
        () => driveErrors.nameTaken(name),
      );
      return viewOf(c, space, id);
    },

    /** Stars a node the caller may browse (again: no change). */
    async star(scope: Scope, id: number) {
      const c = await access.caller(scope);
      await access.authorizeNode(c, id, 'browse');
      await stars.star(db, scope, c.userId, id, clock());
    },

    async unstar(scope: Scope, id: number) {
      const c = await access.caller(scope);
      await access.authorizeNode(c, id, 'browse');
      await stars.unstar(db, c.userId, id);
    },

    /** The caller's starred live nodes they may still browse, newest star first. */
    async starred(scope: Scope, p: PageRequest) {
      const c = await access.caller(scope);
      const a = await views.accessInSpaces(c, await listing.starredSpaceIds(db, scope, c.userId));
      const page = await read((tx) => listing.starredPage(tx, scope, c.userId, a, p));
      return { ...p, total: page.total, list: await viewsOf(c, page.list, a.now) };
    },

    /** The caller's recently opened live nodes they may still browse, latest first. */
    async recent(scope: Scope, p: PageRequest) {
      const c = await access.caller(scope);
      const a = await views.accessInSpaces(c, await listing.recentSpaceIds(db, scope, c.userId));
      const page = await read((tx) => listing.recentPage(tx, scope, c.userId, a, p));
      return { ...p, total: page.total, list: await viewsOf(c, page.list, a.now) };
    },

    /** Live nodes someone granted to the caller (or their department, role, group), each once with its best grant. */
    async sharedWithMe(scope: Scope, p: PageRequest) {
      const c = await access.caller(scope);
      const now = clock();
      const a = await views.accessInSpaces(c, await listing.sharedSpaceIds(db, scope, c.userId, c.set, now));
      const page = await read((tx) => listing.sharedPage(tx, scope, c.userId, { ...a, now }, p));
      const granters = await userNames(
        directory,
        scope.tenantId,
        page.list.map((r) => r.grantedBy),
      );
      const list = (await viewsOf(c, page.list, now)).map((v) => ({
        ...v,
        grantedByName: v.grantedBy === null ? null : (granters.get(v.grantedBy) ?? null),
      }));
      return { ...p, total: page.total, list };
    },
  };
}

export type NodesService = ReturnType<typeof createNodesService>;
