import type { FastifyBaseLogger } from 'fastify';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { assertWritable } from '../nodes/locks.ts';
import * as nodes from '../nodes/node-repository.ts';
import * as spaces from '../spaces/space-repository.ts';
import type { VersionRow } from './version-repository.ts';
import * as repo from './version-repository.ts';

/**
 * A file's history (spec §4.3 rule 7): the list, rollback (a NEW version referencing the old
 * version's managed file, charged like any version; history is never rewritten) and pinning (a
 * pinned version is never removed by the version cap). New versions from bytes are uploads.
 */
export type VersionView = ReturnType<typeof toVersionView>;

export function toVersionView(v: VersionRow, currentVersionId: number | null) {
  return {
    id: v.id,
    nodeId: v.nodeId,
    versionNo: v.versionNo,
    size: v.size,
    mime: v.mime,
    sha256: v.sha256,
    pinned: v.pinned,
    comment: v.comment,
    createdBy: v.createdBy,
    createdAt: v.createdAt,
    current: v.id === currentVersionId,
  };
}

export function createVersionsService(core: DriveCore & { log: FastifyBaseLogger }) {
  const { db, clock, access, activities, usage, versions } = core;

  /** The file and the caller's right to `op` on it; a folder has no versions. */
  async function authorizedFile(scope: Scope, nodeId: number, op: 'browse' | 'version') {
    const caller = await access.caller(scope);
    const found = await access.authorizeNode(caller, nodeId, op);
    if (found.node.type !== 'file') throw driveErrors.notAFile();
    return { caller, ...found };
  }

  async function versionOrThrow(scope: Scope, nodeId: number, versionId: number) {
    const v = await repo.findVersion(db, scope, nodeId, versionId);
    if (!v) throw driveErrors.versionNotFound();
    return v;
  }

  return {
    /** Newest first; `current` marks the one the file shows. */
    async list(scope: Scope, nodeId: number) {
      const { node } = await authorizedFile(scope, nodeId, 'browse');
      return (await repo.nodeVersions(db, scope, node.id)).map((v) => toVersionView(v, node.currentVersionId));
    },

    async rollback(scope: Scope, nodeId: number, versionId: number) {
      const { caller, node } = await authorizedFile(scope, nodeId, 'version');
      const source = await versionOrThrow(scope, node.id, versionId);
      if (source.id === node.currentVersionId) throw driveErrors.versionIsCurrent();
      const version = await db.transaction(async (tx) => {
        const space = await spaces.lockSpace(tx, scope, node.spaceId);
        if (!space) throw driveErrors.spaceNotFound();
        if (space.archivedAt !== null) throw driveErrors.spaceArchived();
        const locked = await nodes.lockNode(tx, scope, node.id);
        if (!locked || locked.deletedAt !== null) throw driveErrors.nodeNotFound();
        await assertWritable(locked, caller.userId, clock(), (id) => access.userName(scope, id));
        // the cap may have removed it meanwhile
        const from = await repo.findVersion(tx, scope, node.id, versionId);
        if (!from) throw driveErrors.versionNotFound();
        if (from.id === locked.currentVersionId) throw driveErrors.versionIsCurrent();
        const appended = await versions.append(
          tx,
          scope,
          space,
          locked,
          { id: from.fileId, size: from.size, mime: from.mime, sha256: from.sha256 },
          { fromUpload: false, comment: `Rollback to version ${from.versionNo}` },
        );
        await activities.record(tx, scope, [
          {
            spaceId: space.id,
            nodeId: node.id,
            action: 'version.rollback',
            detail: { name: locked.name, fromVersionNo: from.versionNo, versionNo: appended.version.versionNo },
          },
        ]);
        return appended.version;
      });
      try {
        await usage.checkWarning(scope, node.spaceId);
      } catch (err) {
        core.log.error({ err, spaceId: node.spaceId }, 'drive: the quota warning check failed');
      }
      return toVersionView(version, version.id);
    },

    async pin(scope: Scope, nodeId: number, versionId: number, pinned: boolean) {
      const { node } = await authorizedFile(scope, nodeId, 'version');
      await versionOrThrow(scope, node.id, versionId);
      const row = await db.transaction(async (tx) => {
        const updated = await repo.setPinned(tx, versionId, pinned);
        if (!updated) throw driveErrors.versionNotFound();
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: 'version.pin',
            detail: { name: node.name, versionNo: updated.versionNo, pinned },
          },
        ]);
        return updated;
      });
      return toVersionView(row, node.currentVersionId);
    },
  };
}

export type VersionsService = ReturnType<typeof createVersionsService>;
