import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { MAX_COPY_NODES, planCopy, type SubtreeCopier } from '../nodes/copy-service.ts';
import { authorizeTargetFolder, type Target } from '../nodes/move-service.ts';
import { everyLiveDescendant } from '../nodes/tree-repository.ts';
import { personalSpaceOf } from '../spaces/auto-spaces-service.ts';
import { createLinkAccess, type Visitor } from './link-access.ts';
import * as repo from './public-repository.ts';

export type SaveInput = { nodeId?: number; targetParentId?: number };

/**
 * POST /public/shares/{token}/save (issue 15): a signed-in user of the link's own tenant copies
 * the shared node, or a node under the shared folder, into a folder of theirs (their personal
 * space's root by default). The copy is the node copy's (managed-file references, the target
 * space charged, its node limit), kept-both named, owned by the caller, with no grants; it takes
 * one download from the link's limit in the same transaction, so a refused or failed save
 * neither counts nor writes anything.
 */
export function createPublicSaveService(core: DriveCore, copySubtree: SubtreeCopier) {
  const { db, access } = core;
  const { open, reachable, log } = createLinkAccess(core);

  /** The folder to save into, or the root of the caller's personal space (made now if need be). */
  async function targetOf(c: DriveCaller, targetParentId: number | undefined): Promise<Target> {
    if (targetParentId !== undefined) return authorizeTargetFolder(core, c, targetParentId);
    const personal = await personalSpaceOf(core, c);
    return { space: (await access.authorizeSpace(c, personal.id, 'create')).space, parent: null };
  }

  return {
    async save(scope: Scope, token: string, visitor: Visitor, input: SaveInput) {
      const c = await access.caller(scope);
      const r = await open(token, visitor);
      if (!r.link.capabilities.includes('save')) throw driveErrors.shareSaveNotAllowed();
      // managed files are a tenant's own: a copy is a reference, which cannot cross tenants
      if (r.link.tenantId !== c.scope.tenantId) throw driveErrors.shareSaveOtherTenant();
      const source = await reachable(r, input.nodeId);
      const target = await targetOf(c, input.targetParentId);
      const below =
        source.type === 'folder' ? await everyLiveDescendant(db, r.scope, [source.id], MAX_COPY_NODES + 1) : [];
      if (below.length + 1 > MAX_COPY_NODES)
        throw httpErrors.invalidField('nodeId', `a save may create at most ${MAX_COPY_NODES} nodes`);
      // the link reaches everything under its folder, so everything is copied
      const { plan } = planCopy([source], below, () => true);
      const out = await copySubtree(c.scope, {
        tops: [source],
        plan,
        target,
        conflict: 'keepBoth',
        userId: c.userId,
        detail: { shareLinkId: r.link.id },
        within: async (tx: Db) => {
          if (!(await repo.countDownload(tx, r.link.id))) throw driveErrors.shareExhausted('download');
          await log(r, source.id, 'download', visitor, { saved: true, userId: c.userId }, { tx, userId: c.userId });
        },
      });
      const node = out.created[0];
      if (!node) throw driveErrors.nodeNotFound();
      return {
        node: { id: node.id, name: node.name, type: node.type, spaceId: node.spaceId, parentId: node.parentId },
        nodeCount: out.nodeCount,
        bytes: out.bytes,
      };
    },
  };
}

export type PublicSaveService = ReturnType<typeof createPublicSaveService>;
