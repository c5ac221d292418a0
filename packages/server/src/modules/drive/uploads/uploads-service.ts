import type { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { AppError, httpErrors } from '../../../platform/http/errors.ts';
import { checkName, type FilePart, StreamTooLong, type UploadPolicy } from '../../files/index.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { assertWritable } from '../nodes/locks.ts';
import { checkNodeName, freeName } from '../nodes/naming.ts';
import type { NodeRow } from '../nodes/node-repository.ts';
import * as nodes from '../nodes/node-repository.ts';
import { allows, assertAllowed } from '../roles.ts';
import type { DriveSettings } from '../settings.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import * as spaces from '../spaces/space-repository.ts';
import type { ConflictPolicy } from '../tables.ts';
import type { VersionRow } from '../versions/version-repository.ts';
import * as versionRepo from '../versions/version-repository.ts';
import { type StoredFile, versionOwner } from '../versions/version-store.ts';
import type { BindingRow } from './bindings-repository.ts';
import * as bindings from './bindings-repository.ts';

/**
 * Uploads into the drive (spec §4.3 rules 1–5): one request up to files.chunkThresholdMb,
 * chunked sessions (init, chunks, complete) above it, and instant upload of content the caller
 * may already download. Bytes become managed files of visibility `restricted` through the files
 * module, checked by the drive's blocked extensions and executable-header detection (the general
 * MIME allow-list does not apply). Every upload lands in one transaction that locks the space
 * row, places the node (keep both, overwrite, skip), appends the version (charging the quota)
 * and records the activity; whatever fails after the bytes are stored drops them again.
 */
/** instant upload looks at this many versions holding the hash (each costs a role check) */
const INSTANT_CANDIDATES = 20;
/** a keep-both name taken by a concurrent create is retried this often */
const PLACE_ATTEMPTS = 3;
const EXPIRY_PAGE = 500;
const RESTRICTED = { restricted: true } as const;

export type UploadTarget = { spaceId?: number; parentId?: number; nodeId?: number; conflict?: ConflictPolicy };

/** An authorized target: a folder (null: the space root) with a conflict policy, or a file's next version. */
type Target =
  | { kind: 'folder'; space: SpaceRow; parent: NodeRow | null; conflict: ConflictPolicy }
  | { kind: 'node'; space: SpaceRow; node: NodeRow };

/** The limits of a drive upload: the files module's sizes, the drive's policy. */
type Limits = { singleBytes: number; maxBytes: number; chunkThresholdMb: number; maxSizeMb: number };

/** What the route reads the multipart body with, after the caller was authorized. */
export type UploadPlan = { caller: DriveCaller; target: Target; limits: Limits; policy: UploadPolicy };

export type Placed = { node: NodeRow; version: VersionRow | null; skipped: boolean };

export type FileNodeView = ReturnType<typeof toFileNodeView>;

export function toFileNodeView(n: NodeRow) {
  return {
    id: n.id,
    spaceId: n.spaceId,
    parentId: n.parentId,
    type: n.type,
    name: n.name,
    size: n.size,
    mime: n.mime,
    sha256: n.sha256,
    versionNo: n.versionNo,
    currentVersionId: n.currentVersionId,
    lockedBy: n.lockUserId,
    lockExpiresAt: n.lockExpiresAt,
    createdBy: n.createdBy,
    updatedBy: n.updatedBy,
    createdAt: n.createdAt,
    updatedAt: n.updatedAt,
  };
}

/** Thrown inside a chunked complete's transaction when conflict=skip meets a file: rolls the new file back. */
class Skipped extends Error {
  readonly node: NodeRow;
  constructor(node: NodeRow) {
    super('skipped');
    this.node = node;
  }
}

const isKey = (err: unknown, key: string) => err instanceof AppError && err.key === key;

export function createUploadsService(core: DriveCore & { log: FastifyBaseLogger }) {
  const { db, clock, access, activities, usage, versions, log } = core;

  /** The files module's sizes, the drive's blocked extensions and no MIME allow-list (§4.3 rule 5). */
  async function limitsOf(scope: Scope): Promise<{ limits: Limits; policy: UploadPolicy }> {
    const [files, drive] = await Promise.all([
      core.files.files.uploadLimits(scope),
      core.settings.effective<DriveSettings>('drive', scope.tenantId),
    ]);
    const { singleBytes, maxBytes, chunkThresholdMb, maxSizeMb } = files;
    return {
      limits: { singleBytes, maxBytes, chunkThresholdMb, maxSizeMb },
      policy: { mimeAllowList: null, blockedExtensions: drive.blockedExtensions },
    };
  }

  const tooLarge = (limits: Limits) => (limit: number) =>
    limit < limits.maxBytes
      ? driveErrors.useChunkedUpload(limits.chunkThresholdMb)
      : driveErrors.tooLarge(limits.maxSizeMb);

  /** Authorizes the target: 'upload' on the folder or space root, 'version' on a file. */
  async function resolveTarget(caller: DriveCaller, t: UploadTarget): Promise<Target> {
    if (t.nodeId !== undefined) {
      if (t.parentId !== undefined) throw httpErrors.invalidField('parentId', 'give parentId or nodeId, not both');
      const { node, space } = await access.authorizeNode(caller, t.nodeId, 'version');
      if (node.type !== 'file') throw driveErrors.notAFile();
      if (t.spaceId !== undefined && t.spaceId !== space.id)
        throw httpErrors.invalidField('spaceId', 'is not the space of nodeId');
      return { kind: 'node', space, node };
    }
    if (t.spaceId === undefined) throw httpErrors.invalidField('spaceId', 'is required unless nodeId is given');
    const conflict = t.conflict ?? 'keepBoth';
    if (t.parentId !== undefined) {
      const { node, space } = await access.authorizeNode(caller, t.parentId, 'upload');
      if (node.type !== 'folder') throw driveErrors.notAFolder('parentId');
      if (space.id !== t.spaceId) throw httpErrors.invalidField('parentId', 'is not a folder of space spaceId');
      return { kind: 'folder', space, parent: node, conflict };
    }
    const { space } = await access.authorizeSpace(caller, t.spaceId, 'upload');
    return { kind: 'folder', space, parent: null, conflict };
  }

  const holderName = (scope: Scope) => (userId: number) => access.userName(scope, userId);

  /** Overwriting a same-named file needs 'version' on it; one the caller cannot see just holds the name. */
  async function assertOverwritable(caller: DriveCaller, sibling: NodeRow, space: SpaceRow) {
    if (sibling.type === 'folder') throw driveErrors.nameTaken(sibling.name);
    const role = await access.nodeRole(caller, sibling, space);
    if (role === null) throw driveErrors.nameTaken(sibling.name);
    assertAllowed(role, 'version', { archived: space.archivedAt !== null });
  }

  /**
   * The checks that need no bytes, before any are read: the name, the conflict with a same-named
   * item (skip answers it, overwrite needs 'version' on it) and a lock held by someone else.
   * Answers the node a skip found, if any; the transaction checks all of it again.
   */
  async function precheckTarget(caller: DriveCaller, target: Target, name: string): Promise<NodeRow | null> {
    const now = clock();
    if (target.kind === 'node') {
      await assertWritable(target.node, caller.userId, now, holderName(caller.scope));
      return null;
    }
    const sibling = await nodes.liveSibling(db, target.space.id, target.parent?.id ?? null, name);
    if (!sibling) return null;
    if (target.conflict === 'skip') {
      if (sibling.type !== 'file' || !allows(await access.nodeRole(caller, sibling, target.space), 'browse'))
        throw driveErrors.nameTaken(sibling.name);
      return sibling;
    }
    if (target.conflict === 'overwrite') {
      await assertOverwritable(caller, sibling, target.space);
      await assertWritable(sibling, caller.userId, now, holderName(caller.scope));
    }
    return null;
  }

  /** The node, locked, live, and not checked out by someone else (re-checked on the locked row). */
  async function lockWritable(tx: Db, caller: DriveCaller, id: number): Promise<NodeRow> {
    const node = await nodes.lockNode(tx, caller.scope, id);
    if (!node || node.deletedAt !== null) throw driveErrors.nodeNotFound();
    if (node.type !== 'file') throw driveErrors.notAFile();
    await assertWritable(node, caller.userId, clock(), holderName(caller.scope));
    return node;
  }

  /**
   * Inside the caller's transaction: locks the space, resolves the name against the live
   * siblings, creates the node or locks the file to version, settles a chunked upload's
   * reservation, appends the version and records the activity.
   */
  async function place(
    tx: Db,
    caller: DriveCaller,
    target: Target,
    name: string,
    file: StoredFile,
    opts: {
      fromUpload: boolean;
      binding?: BindingRow;
      detail?: Record<string, unknown>;
      /** more of the same transaction once the file is placed (a collection link's counters and record) */
      within?: (tx: Db, placed: Placed) => Promise<void>;
    },
  ): Promise<Placed> {
    const { scope } = caller;
    const space = await spaces.lockSpace(tx, scope, target.space.id);
    if (!space) throw driveErrors.spaceNotFound();
    if (space.archivedAt !== null) throw driveErrors.spaceArchived();
    let node: NodeRow;
    let created = false;
    if (target.kind === 'node') {
      node = await lockWritable(tx, caller, target.node.id);
    } else {
      const parent = target.parent ? await nodes.lockNode(tx, scope, target.parent.id) : null;
      if (target.parent && (!parent || parent.deletedAt !== null)) throw driveErrors.nodeNotFound();
      const parentId = parent?.id ?? null;
      const sibling = await nodes.liveSibling(tx, space.id, parentId, name);
      if (sibling && target.conflict === 'skip' && sibling.type === 'file')
        return { node: sibling, version: null, skipped: true };
      if (sibling && target.conflict === 'overwrite') {
        await assertOverwritable(caller, sibling, space);
        node = await lockWritable(tx, caller, sibling.id);
      } else {
        if (sibling && target.conflict === 'skip') throw driveErrors.nameTaken(sibling.name);
        const free = sibling ? await freeName(tx, space.id, parentId, name, false) : name;
        node = await nodes.insertNode(tx, scope, parent, {
          spaceId: space.id,
          type: 'file',
          name: free,
          createdBy: caller.userId,
          updatedBy: caller.userId,
        });
        created = true;
      }
    }
    let charged = false;
    if (opts.binding) {
      // the reservation becomes usage; gone (the expiry task released it) means charge it now
      const claimed = await bindings.claimBinding(tx, opts.binding.id);
      if (claimed) {
        await usage.settleReservation(tx, space.id, claimed.reservedBytes);
        charged = true;
      }
    }
    const appended = await versions.append(tx, scope, space, node, file, { fromUpload: opts.fromUpload, charged });
    await activities.record(tx, scope, [
      {
        spaceId: space.id,
        nodeId: node.id,
        action: created ? 'node.upload' : 'version.upload',
        detail: { name: node.name, size: file.size, versionNo: appended.version.versionNo, ...opts.detail },
      },
    ]);
    const placed = { node: appended.node, version: appended.version, skipped: false };
    await opts.within?.(tx, placed);
    return placed;
  }

  /** `place` in a transaction of its own, retried when a concurrent create took the free name. */
  async function placeInTransaction(...args: Parameters<typeof place> extends [Db, ...infer R] ? R : never) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.transaction((tx) => place(tx, ...args));
      } catch (err) {
        if (isUniqueViolation(err) && attempt < PLACE_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /** After a charge commits: the quota warning (a failure there must not fail the upload that committed). */
  async function warn(scope: Scope, spaceId: number) {
    try {
      await usage.checkWarning(scope, spaceId);
    } catch (err) {
      log.error({ err, spaceId }, 'drive: the quota warning check failed');
    }
  }

  /**
   * Streams the bytes into a managed file (hashed, the policy and executable headers checked
   * before anything is written) and places it; bytes that do not become a version are dropped.
   */
  async function storeAndPlace(
    caller: DriveCaller,
    target: Target,
    name: string,
    part: FilePart,
    opts: {
      maxBytes: number;
      policy: UploadPolicy;
      tooLarge: (limit: number) => AppError;
      detail?: Record<string, unknown>;
      within?: (tx: Db, placed: Placed) => Promise<void>;
    },
  ): Promise<Placed> {
    const scope = caller.scope;
    let stored: StoredFile;
    try {
      // read at call time: a test may stand between the bytes and the transaction
      stored = await core.files.store(scope, {
        body: part.body,
        name,
        declaredMime: part.declaredMime,
        visibility: 'restricted',
        maxBytes: opts.maxBytes,
        policy: opts.policy,
      });
    } catch (err) {
      if (err instanceof StreamTooLong) throw opts.tooLarge(err.limit);
      throw err;
    }
    let placed: Placed;
    try {
      placed = await placeInTransaction(caller, target, name, stored, {
        fromUpload: true,
        ...(opts.detail ? { detail: opts.detail } : {}),
        ...(opts.within ? { within: opts.within } : {}),
      });
    } catch (err) {
      await discardUpload(scope, stored.id);
      throw err;
    }
    if (placed.skipped) {
      await discardUpload(scope, stored.id);
      return placed;
    }
    await warn(scope, target.space.id);
    return placed;
  }

  /** Gives a chunked upload's reservation back, once (whoever deletes the binding). */
  async function releaseBinding(scope: Scope, binding: BindingRow) {
    const released = await db.transaction(async (tx) => {
      const claimed = await bindings.claimBinding(tx, binding.id);
      if (claimed) await usage.release(tx, claimed.spaceId, claimed.reservedBytes, 'reserved');
      return claimed !== null;
    });
    if (released) await warn(scope, binding.spaceId);
  }

  /** Ends a chunked upload that cannot land: its session and chunks go, its reservation comes back. */
  async function abandon(scope: Scope, binding: BindingRow) {
    await core.files.uploads.abort(scope, binding.uploadSessionId, RESTRICTED).catch((err: unknown) => {
      if (!isKey(err, 'files.upload_not_found'))
        log.warn({ err, sessionId: binding.uploadSessionId }, 'drive: could not discard an upload session');
    });
    await releaseBinding(scope, binding);
  }

  /** Drops the upload's own reference of bytes that never became a version: collected as an orphan. */
  const discardUpload = (scope: Scope, fileId: number) =>
    db.transaction((tx) => versions.discardUpload(tx, scope, fileId));

  async function bindingOrThrow(scope: Scope, sessionId: number) {
    const user = userOf(scope);
    const binding = user ? await bindings.findBinding(db, scope, user.userId, sessionId) : null;
    if (!binding) throw driveErrors.uploadNotFound();
    return binding;
  }

  /** The files module's "no such session" is the drive's "no such upload". */
  const driveNotFound = (err: unknown): never => {
    throw isKey(err, 'files.upload_not_found') ? driveErrors.uploadNotFound() : err;
  };

  const targetOfBinding = (b: BindingRow): UploadTarget => ({
    spaceId: b.spaceId,
    ...(b.nodeId !== null ? { nodeId: b.nodeId } : b.parentId !== null ? { parentId: b.parentId } : {}),
    conflict: b.conflict,
  });

  /** The name and the checks every upload makes before storing a byte. */
  async function checkedName(caller: DriveCaller, target: Target, raw: string, policy: UploadPolicy, field: string) {
    const name = target.kind === 'node' ? target.node.name : checkNodeName(raw, field);
    checkName(raw, policy, field);
    return { name, skipped: await precheckTarget(caller, target, name) };
  }

  async function sessionView(scope: Scope, b: BindingRow) {
    const s = await core.files.uploads.get(scope, b.uploadSessionId, RESTRICTED).catch(driveNotFound);
    return {
      sessionId: s.id,
      spaceId: b.spaceId,
      parentId: b.parentId,
      nodeId: b.nodeId,
      name: b.name,
      size: s.size,
      chunkSize: s.chunkSize,
      totalChunks: s.totalChunks,
      receivedChunks: s.receivedChunks,
      status: s.status,
      expiresAt: s.expiresAt,
    };
  }

  /** A repeat of a successful complete: the node its file became (while the session is remembered). */
  async function completedBefore(caller: DriveCaller, sessionId: number): Promise<Placed> {
    const s = await core.files.uploads.get(caller.scope, sessionId, RESTRICTED).catch(driveNotFound);
    const version = s.fileId !== null ? await versionRepo.firstVersionOfFile(db, caller.scope, s.fileId) : null;
    if (s.status !== 'completed' || !version) throw driveErrors.uploadNotFound();
    const { node } = await access.authorizeNode(caller, version.nodeId, 'browse');
    return { node, version, skipped: false };
  }

  /** A version holding this content on a live node the caller may download, if any. */
  async function instantSource(caller: DriveCaller, sha256: string, size: number): Promise<VersionRow | null> {
    const candidates = await versionRepo.liveVersionsWithHash(db, caller.scope, sha256, size, INSTANT_CANDIDATES);
    const seen = new Map<number, boolean>();
    const spaceById = new Map<number, SpaceRow | null>();
    for (const { version, node } of candidates) {
      if (!seen.has(node.id)) {
        if (!spaceById.has(node.spaceId))
          spaceById.set(node.spaceId, await spaces.findSpace(db, caller.scope, node.spaceId));
        const space = spaceById.get(node.spaceId);
        seen.set(node.id, space ? allows(await access.nodeRole(caller, node, space), 'download') : false);
      }
      if (seen.get(node.id)) return version;
    }
    return null;
  }

  return {
    /** Authorizes a single-request upload before its body is read; the route then reads the file part. */
    async prepare(scope: Scope, t: UploadTarget): Promise<UploadPlan> {
      const caller = await access.caller(scope);
      const target = await resolveTarget(caller, t);
      return { caller, target, ...(await limitsOf(scope)) };
    },

    /** The error for a body past `limit` bytes (the multipart reader's and the store's): 413 either way. */
    tooLarge: (plan: UploadPlan) => tooLarge(plan.limits),

    /** A single-request upload (POST /nodes/upload, POST /nodes/:id/versions). */
    async upload(plan: UploadPlan, part: FilePart) {
      const { caller, target, limits, policy } = plan;
      let name: string;
      try {
        const checked = await checkedName(caller, target, part.name, policy, 'file');
        if (checked.skipped) {
          part.body.destroy();
          return { node: checked.skipped, version: null, skipped: true };
        }
        name = checked.name;
      } catch (err) {
        part.body.destroy();
        throw err;
      }
      return storeAndPlace(caller, target, name, part, {
        maxBytes: limits.singleBytes,
        policy,
        tooLarge: tooLarge(limits),
      });
    },

    /**
     * A file that comes from outside the drive's upload routes (a collection link): `caller`
     * (the link's creator) owns it; it lands in `folder` with keep-both renaming, bounded by
     * `maxBytes`, and `within` runs in the transaction that places it. The name was checked by
     * the caller; the drive's blocked extensions and executable headers are checked here.
     */
    async receive(
      caller: DriveCaller,
      at: { space: SpaceRow; folder: NodeRow },
      part: FilePart,
      opts: {
        maxBytes: number;
        tooLarge: (limit: number) => AppError;
        detail: Record<string, unknown>;
        within: (tx: Db, placed: Placed) => Promise<void>;
      },
    ) {
      const { policy } = await limitsOf(caller.scope);
      const target: Target = { kind: 'folder', space: at.space, parent: at.folder, conflict: 'keepBoth' };
      let name: string;
      try {
        name = checkNodeName(part.name, 'file');
        checkName(part.name, policy, 'file');
      } catch (err) {
        part.body.destroy();
        throw err;
      }
      return storeAndPlace(caller, target, name, part, { ...opts, policy });
    },

    /** Opens a chunked upload: authorizes, checks the name and size, reserves the quota. */
    async init(
      scope: Scope,
      input: UploadTarget & { name: string; size: number; chunkSize: number; contentHash?: string; mime?: string },
    ) {
      const caller = await access.caller(scope);
      const target = await resolveTarget(caller, input);
      const { limits, policy } = await limitsOf(scope);
      if (input.size > limits.maxBytes) throw driveErrors.tooLarge(limits.maxSizeMb, 'size');
      const { name, skipped } = await checkedName(caller, target, input.name, policy, 'name');
      if (skipped) return { skipped: true as const, node: toFileNodeView(skipped) };
      // early refusal of what cannot fit; the reservation below is the atomic check
      const quota = await usage.quotaOf(target.space);
      if (quota > 0 && target.space.usedBytes + target.space.reservedBytes + input.size > quota)
        throw driveErrors.quotaExceeded(quota, target.space.usedBytes + target.space.reservedBytes, input.size);
      // The session first (a row, no bytes): the binding names it. A refused reservation deletes it.
      const session = await core.files.uploads.init(
        scope,
        { name, size: input.size, chunkSize: input.chunkSize, declaredSha256: input.contentHash, mime: input.mime },
        { policy, visibility: 'restricted', maxBytes: limits.maxBytes },
      );
      let binding: BindingRow;
      try {
        binding = await db.transaction(async (tx) => {
          await usage.reserve(tx, target.space, input.size);
          return bindings.insertBinding(tx, scope, {
            uploadSessionId: session.id,
            spaceId: target.space.id,
            parentId: target.kind === 'folder' ? (target.parent?.id ?? null) : null,
            nodeId: target.kind === 'node' ? target.node.id : null,
            name,
            conflict: target.kind === 'folder' ? target.conflict : 'overwrite',
            reservedBytes: input.size,
            userId: caller.userId,
          });
        });
      } catch (err) {
        await core.files.uploads.abort(scope, session.id, RESTRICTED).catch((e: unknown) => {
          log.warn({ err: e, sessionId: session.id }, 'drive: could not discard a refused upload session');
        });
        throw err;
      }
      await warn(scope, target.space.id);
      return { ...(await sessionView(scope, binding)), skipped: false as const };
    },

    /** The session with the chunks received so far (resume). */
    status: async (scope: Scope, sessionId: number) => sessionView(scope, await bindingOrThrow(scope, sessionId)),

    async putChunk(scope: Scope, sessionId: number, index: number, body: Readable | undefined) {
      try {
        await bindingOrThrow(scope, sessionId);
      } catch (err) {
        body?.destroy();
        throw err;
      }
      return core.files.uploads.putChunk(scope, sessionId, index, body, RESTRICTED).catch(driveNotFound);
    },

    /**
     * Assembles the chunks (the server's SHA-256 decides) and, in the transaction that records
     * the file, places it: the reservation becomes usage and the binding goes. A hash mismatch
     * or a refused content aborts the session (the files module deletes its chunks) and gives
     * the reservation back; a placement that fails (a lock, a folder of that name) aborts it too.
     * A repeat after success answers the same node.
     */
    async complete(scope: Scope, sessionId: number) {
      const caller = await access.caller(scope);
      const binding = await bindings.findBinding(db, scope, caller.userId, sessionId);
      if (!binding) return completedBefore(caller, sessionId);
      // a target gone or out of reach since init: the upload can never land
      const target = await resolveTarget(caller, targetOfBinding(binding)).catch(async (err: unknown) => {
        await abandon(scope, binding);
        throw err;
      });
      let placed: Placed | null = null;
      let placing = false;
      try {
        await core.files.uploads.complete(scope, sessionId, {
          ...RESTRICTED,
          within: async (tx, file) => {
            placing = true;
            placed = await place(tx, caller, target, binding.name, file, { fromUpload: true, binding });
            if (placed.skipped) throw new Skipped(placed.node);
            placing = false;
          },
        });
      } catch (err) {
        // a refusal of the placement (a lock, a folder of that name…) ends the upload; a
        // transient failure (the database) leaves the session open for another complete
        if ((placing && err instanceof AppError) || err instanceof Skipped) {
          await abandon(scope, binding);
          if (err instanceof Skipped) return { node: err.node, version: null, skipped: true };
          throw err;
        }
        const alive = (await core.files.uploads.liveSessionIds([sessionId])).has(sessionId);
        if (!alive) await releaseBinding(scope, binding);
        if (isKey(err, 'files.hash_mismatch')) throw driveErrors.hashMismatch();
        return driveNotFound(err);
      }
      const done = placed as Placed | null;
      if (!done) throw new Error(`drive upload ${sessionId}: completed without placing the file`);
      await warn(scope, target.space.id);
      return done;
    },

    /** Aborts a chunked upload: its chunks go, its reservation comes back. */
    async abort(scope: Scope, sessionId: number) {
      const binding = await bindingOrThrow(scope, sessionId);
      await core.files.uploads.abort(scope, sessionId, RESTRICTED).catch((err: unknown) => {
        // already gone (expired): only the reservation is left to give back
        if (!isKey(err, 'files.upload_not_found')) throw err;
      });
      await releaseBinding(scope, binding);
    },

    /**
     * Instant upload (§4.3 rule 2): when this content is a version of a live node the caller may
     * download, the new file references the same managed file (no bytes sent); quota is charged.
     */
    async precheck(scope: Scope, input: UploadTarget & { name: string; size: number; sha256: string }) {
      const caller = await access.caller(scope);
      const target = await resolveTarget(caller, input);
      const { limits, policy } = await limitsOf(scope);
      const answer = { chunkThresholdMb: limits.chunkThresholdMb, useChunked: input.size > limits.singleBytes };
      const { name, skipped } = await checkedName(caller, target, input.name, policy, 'name');
      if (skipped) return { ...answer, instant: false, skipped: true, node: toFileNodeView(skipped) };
      const source = await instantSource(caller, input.sha256.toLowerCase(), input.size);
      if (!source) return { ...answer, instant: false, skipped: false, node: null };
      const file = { id: source.fileId, size: source.size, mime: source.mime, sha256: source.sha256 };
      const placed = await placeInTransaction(caller, target, name, file, {
        fromUpload: false,
        detail: { instant: true },
      });
      if (!placed.skipped) await warn(scope, target.space.id);
      return { ...answer, instant: !placed.skipped, skipped: placed.skipped, node: toFileNodeView(placed.node) };
    },

    /**
     * A version's content through the ACL: 'preview' (viewer) in place, 'download' (downloader)
     * with `download`. `recent` records the access (not for every Range request of one reading).
     */
    async content(scope: Scope, nodeId: number, q: { download?: boolean; versionId?: number }, recent: boolean) {
      const caller = await access.caller(scope);
      const { node } = await access.authorizeNode(caller, nodeId, q.download ? 'download' : 'preview');
      if (node.type !== 'file') throw driveErrors.notAFile();
      let file: Awaited<ReturnType<typeof core.files.files.referencedBy>>;
      if (q.versionId === undefined) {
        // the current version: its file in one statement (the hot path of downloads and previews)
        if (node.currentVersionId === null) throw driveErrors.versionNotFound();
        file = await core.files.files.referencedBy(scope, versionOwner(node.currentVersionId));
      } else {
        const version = await versionRepo.findVersion(db, scope, node.id, q.versionId);
        if (!version) throw driveErrors.versionNotFound();
        file = await core.files.files.ownedBy(scope, version.fileId, versionOwner(version.id));
      }
      if (recent) await nodes.touchRecent(db, scope, caller.userId, node.id, clock());
      // one reading counts once towards the bulk-download alert, as for the recent list
      if (recent && q.download) await core.alerts.userDownload(scope.tenantId, caller.userId, node.spaceId);
      // the name users know is the node's (it may have been renamed since)
      return { file: { ...file, name: node.name }, inline: !q.download };
    },

    /** Streams it: Range/206/416, ETag/304; only raster images and PDF ever inline. */
    send: (
      req: FastifyRequest,
      reply: FastifyReply,
      file: Parameters<DriveCore['files']['sendContent']>[2],
      opts: { inline: boolean },
    ) => core.files.sendContent(req, reply, file, opts),

    /**
     * System task `drive.expireUploadBindings`: bindings whose files session is gone or expired
     * (aborted elsewhere, abandoned) give their reservation back. Each binding is claimed by a
     * conditional delete, so several instances running it release each reservation once.
     */
    async expireUploadBindings(now: Date = clock()) {
      let released = 0;
      let afterId = 0;
      for (;;) {
        const page = await bindings.bindingsAfter(db, afterId, EXPIRY_PAGE);
        if (page.length === 0) break;
        afterId = (page[page.length - 1] as BindingRow).id;
        const live = await core.files.uploads.liveSessionIds(
          page.map((b) => b.uploadSessionId),
          now,
        );
        const dead = page.filter((b) => !live.has(b.uploadSessionId)).map((b) => b.id);
        if (dead.length) {
          released += await db.transaction(async (tx) => {
            const claimed = await bindings.claimBindings(tx, dead);
            for (const b of claimed) await usage.release(tx, b.spaceId, b.reservedBytes, 'reserved');
            return claimed.length;
          });
        }
        if (page.length < EXPIRY_PAGE) break;
      }
      return { released };
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
