import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import type { FilesModule } from '../../files/index.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import type { UsageService } from '../spaces/usage-service.ts';
import type { VersionRow } from './version-repository.ts';
import * as repo from './version-repository.ts';

/**
 * The one way bytes enter and leave the drive's accounting: a version is a managed file
 * referenced as `drive_version/<id>`; appending one charges its size to the space, removing one
 * (version cap, purge) drops the reference and gives the bytes back. Copies reference the same
 * managed file (no bytes copied) but count in the target space's usage.
 */
export type StoredFile = { id: number; size: number; mime: string; sha256: string };
export const versionOwner = (versionId: number) => ({ type: 'drive_version', id: versionId });

export function createVersionStore(deps: {
  files: Pick<FilesModule, 'addRef' | 'dropRef'>;
  usage: UsageService;
  clock: () => Date;
}) {
  const { files, usage, clock } = deps;

  async function remove(tx: Db, scope: Scope, spaceId: number, versions: VersionRow[]) {
    if (versions.length === 0) return 0;
    let bytes = 0;
    for (const v of versions) {
      await files.dropRef(tx, scope, v.fileId, versionOwner(v.id));
      bytes += v.size;
    }
    await repo.deleteVersions(
      tx,
      versions.map((v) => v.id),
    );
    await usage.release(tx, spaceId, bytes);
    return bytes;
  }

  return {
    /**
     * Makes `file` the node's next version inside the caller's transaction (the node row locked
     * by the caller): the version row, its reference, the charge (unless `charged`, a settled
     * reservation), the node's current version, then the version cap. `fromUpload` drops the
     * upload's own reference, so the drive version is the file's only owner.
     */
    async append(
      tx: Db,
      scope: Scope,
      space: SpaceRow,
      node: NodeRow,
      file: StoredFile,
      opts: { fromUpload: boolean; charged?: boolean; comment?: string; pinned?: boolean },
    ): Promise<{ version: VersionRow; node: NodeRow; removed: VersionRow[] }> {
      if (!opts.charged) await usage.charge(tx, space, file.size);
      const by = userOf(scope)?.userId ?? null;
      const version = await repo.insertVersion(tx, scope, {
        spaceId: space.id,
        nodeId: node.id,
        versionNo: await repo.nextVersionNo(tx, node.id),
        fileId: file.id,
        size: file.size,
        mime: file.mime,
        sha256: file.sha256,
        pinned: opts.pinned ?? false,
        comment: opts.comment ?? '',
        createdBy: by,
      });
      await files.addRef(tx, scope, file.id, versionOwner(version.id));
      if (opts.fromUpload) await files.dropRef(tx, scope, file.id, { type: 'upload', id: file.id });
      const current = (await repo.setCurrent(tx, node, version, by, clock())) as NodeRow;
      const keep = await usage.maxVersionsOf(space);
      const removed = await repo.versionsBeyondCap(tx, node.id, version.id, keep);
      await remove(tx, scope, space.id, removed);
      return { version, node: current, removed };
    },

    /** Removes versions (their references and their bytes) inside the caller's transaction. */
    remove,

    /** Removes every version of nodes being purged; answers the bytes released. */
    async purge(tx: Db, scope: Scope, spaceId: number, nodeIds: number[]) {
      return remove(tx, scope, spaceId, await repo.versionsOfNodes(tx, scope, nodeIds));
    },

    /** Drops the upload's own reference of a stored file that never became a version (a failed request). */
    async discardUpload(db: Db, scope: Scope, fileId: number) {
      await files.dropRef(db, scope, fileId, { type: 'upload', id: fileId });
    },
  };
}

export type VersionStore = ReturnType<typeof createVersionStore>;
