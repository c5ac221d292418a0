import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { isForeignKeyViolation } from '../../platform/db/sql.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import type { StorageProvider } from '../../platform/storage/provider.ts';
import { filesErrors } from './errors.ts';
import { SNIFF_BYTES } from './file-guards.ts';
import { newObjectKey, type ObjectStore, type WrittenContent, writeContent } from './object-store-service.ts';
import type { StorageResolver } from './storage-resolver.ts';
import { concatenated, metered, peek, StreamTooLong } from './streams.ts';
import { checkContent, checkName, generalUploadLimits, normalizeMime, type UploadPolicy } from './upload-policy.ts';
import * as repo from './upload-session-repository.ts';

/**
 * Chunked uploads (spec §4.3 rules 1 and 3): init → chunks (any order, repeatable, resumable)
 * → complete. Each chunk is a provider object `uploads/<session>/<index>`; complete streams
 * them in order through SHA-256 into one new object, and a declared hash that differs aborts
 * the session and deletes every byte it stored.
 */
const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** a complete holds its session this long, however long assembling takes */
const COMPLETING_TTL_MS = 60 * 60 * 1000;
const MAX_CHUNKS = 10_000;

export type UploadInitInput = {
  name: string;
  size: number;
  chunkSize: number;
  declaredSha256?: string;
  mime?: string;
  visibility?: 'public' | 'private';
};

/**
 * A session another module opens for its own files (the drive): its policy (kept with the
 * session and used at every step instead of the general one), visibility `restricted` and
 * its own size limit. Restricted sessions are reached only with `{ restricted: true }`: the
 * general routes never see them, as they never see restricted files.
 */
export type OwnedSessionOptions = { policy?: UploadPolicy; visibility?: 'restricted'; maxBytes?: number };
export type SessionAccess = { restricted?: boolean };

/** What a complete hands to `within`: the new managed file, in the transaction that records it. */
export type CompletedFile = { id: number; size: number; mime: string; sha256: string };

export const chunkKey = (sessionId: number, index: number) => `uploads/${sessionId}/${index}`;

export function createChunkedUploads(ctx: AppContext, deps: { resolver: StorageResolver; store: ObjectStore }) {
  const { db, clock } = ctx;
  const later = (ms: number) => new Date(clock().getTime() + ms);

  async function sessionOrThrow(scope: Scope, id: number, access: SessionAccess = {}) {
    const row = await repo.findSession(db, scope, userOf(scope)?.userId ?? null, id);
    if (!row || row.expiresAt <= clock()) throw filesErrors.uploadNotFound();
    if ((row.visibility === 'restricted') !== (access.restricted ?? false)) throw filesErrors.uploadNotFound();
    return row;
  }

  /** The session's own policy (a drive session's), else the tenant's general one, read now. */
  const policyOf = async (scope: Scope, session: repo.SessionRow) =>
    session.policy ?? (await generalUploadLimits(ctx.settings, scope.tenantId)).policy;

  async function toUploadSessionView(row: repo.SessionRow) {
    const { id, name, size, chunkSize, totalChunks, status, fileId, expiresAt } = row;
    const receivedChunks = status === 'completed' ? [] : await repo.receivedChunks(db, id);
    return { id, name, size, chunkSize, totalChunks, receivedChunks, status, fileId, expiresAt };
  }

  async function deleteChunkObjects(provider: StorageProvider, sessionId: number, indexes: Iterable<number>) {
    for (const i of indexes) {
      try {
        await provider.delete(chunkKey(sessionId, i));
      } catch (err) {
        ctx.log.warn({ err, sessionId, index: i }, 'files: could not delete an upload chunk');
      }
    }
  }

  /** Deletes the session and every chunk object it stored. */
  async function discardSession(id: number, cond: Parameters<typeof repo.deleteSession>[2] = {}) {
    const gone = await db.transaction((tx) => repo.deleteSession(tx, id, cond));
    if (!gone) return false;
    const provider = await deps.resolver.byConfigId(gone.session.storageConfigId);
    await deleteChunkObjects(provider, id, gone.chunks);
    return true;
  }

  /**
   * Writes the chunks, in order, as one new object, hashing them on the way; the head of chunk 0
   * is sniffed first (a refused type aborts the session). A provider that can concatenate its own
   * objects (local) copies without the bytes passing through streams; others stream them.
   */
  async function assemble(
    target: { configId: number | null; provider: StorageProvider },
    session: repo.SessionRow,
    policy: UploadPolicy,
    abort: (err: unknown) => Promise<never>,
  ): Promise<WrittenContent & { mime: string }> {
    const { provider } = target;
    const keys = Array.from({ length: session.totalChunks }, (_, i) => chunkKey(session.id, i));
    if (!provider.concat) {
      const p = await peek(
        concatenated((i) => provider.get(keys[i] as string), keys.length),
        SNIFF_BYTES,
      );
      const { mime } = await checkContent(p.head, session.declaredMime, policy).catch((err) => {
        p.body.destroy();
        return abort(err);
      });
      return { ...(await writeContent(target, p.body, session.size, mime)), mime };
    }
    const first = await provider.get(keys[0] as string, { start: 0, end: SNIFF_BYTES - 1 });
    const head = Buffer.concat(await first.toArray());
    const { mime } = await checkContent(head, session.declaredMime, policy).catch(abort);
    const key = newObjectKey();
    const hash = createHash('sha256');
    const { size } = await provider.concat(key, keys, (chunk) => hash.update(chunk));
    const content = { ...target, key, sha256: hash.digest('hex'), size, mime };
    if (size !== session.size) {
      // a chunk object changed under the session: store nothing
      await deps.store.discard(content);
      throw new Error(`upload ${session.id}: the chunks hold ${size} bytes, the session ${session.size}`);
    }
    return content;
  }

  return {
    async init(scope: Scope, input: UploadInitInput, opts: OwnedSessionOptions = {}) {
      const limits = await generalUploadLimits(ctx.settings, scope.tenantId);
      const maxBytes = opts.maxBytes ?? limits.maxBytes;
      if (input.size > maxBytes) throw filesErrors.tooLarge(Math.floor(maxBytes / (1024 * 1024)));
      const totalChunks = Math.ceil(input.size / input.chunkSize);
      if (totalChunks > MAX_CHUNKS) {
        throw httpErrors.invalidField('chunkSize', `too small: the file would take more than ${MAX_CHUNKS} chunks`);
      }
      if (input.mime !== undefined && normalizeMime(input.mime) === null) {
        throw httpErrors.invalidField('mime', 'is not a media type (type/subtype)');
      }
      checkName(input.name, opts.policy ?? limits.policy);
      const target = await deps.resolver.forNewObject(scope.tenantId);
      const row = await repo.sessionRows.insert(db, scope, {
        ownerUserId: userOf(scope)?.userId ?? null,
        name: input.name,
        size: input.size,
        chunkSize: input.chunkSize,
        totalChunks,
        declaredSha256: input.declaredSha256?.toLowerCase() ?? null,
        declaredMime: input.mime ?? null,
        visibility: opts.visibility ?? input.visibility ?? 'private',
        policy: opts.policy ?? null,
        storageConfigId: target.configId,
        expiresAt: later(SESSION_TTL_MS),
      });
      return toUploadSessionView(row);
    },

    get: async (scope: Scope, id: number, access: SessionAccess = {}) =>
      toUploadSessionView(await sessionOrThrow(scope, id, access)),

    /** Stores chunk `index`; a repeat replaces it. Its size must be exact (the last one: the rest). */
    async putChunk(scope: Scope, id: number, index: number, body: Readable | undefined, access: SessionAccess = {}) {
      const session = await sessionOrThrow(scope, id, access);
      if (!(body instanceof Readable)) {
        throw httpErrors.invalidField('body', 'must be the chunk bytes, sent as application/octet-stream');
      }
      if (session.status !== 'open') throw filesErrors.uploadInProgress();
      if (index >= session.totalChunks) {
        throw httpErrors.invalidField('index', `must be less than totalChunks (${session.totalChunks})`);
      }
      const expected =
        index === session.totalChunks - 1
          ? session.size - session.chunkSize * (session.totalChunks - 1)
          : session.chunkSize;
      let stream = body;
      if (index === 0) {
        // Early refusal of an executable or a type outside the allow-list; complete checks again.
        const policy = await policyOf(scope, session);
        const p = await peek(body, SNIFF_BYTES);
        await checkContent(p.head, session.declaredMime, policy).catch((err) => {
          p.body.destroy();
          throw err;
        });
        stream = p.body;
      }
      const provider = await deps.resolver.byConfigId(session.storageConfigId);
      const key = chunkKey(id, index);
      const m = metered(stream, expected, { hash: false });
      try {
        await provider.put(key, m.stream, { contentType: 'application/octet-stream' });
      } catch (err) {
        // A failed put stores nothing (an earlier copy of this chunk stays as it was).
        if (err instanceof StreamTooLong) throw filesErrors.chunkSizeMismatch(expected);
        throw err;
      }
      if (m.bytes() !== expected) {
        await provider.delete(key);
        await repo.forgetChunk(db, id, index);
        throw filesErrors.chunkSizeMismatch(expected);
      }
      const expiresAt = later(SESSION_TTL_MS);
      try {
        await db.transaction(async (tx) => {
          if (!(await repo.touchOpen(tx, id, expiresAt))) throw filesErrors.uploadNotFound();
          await repo.upsertChunk(tx, scope, id, index, expected);
        });
      } catch (err) {
        // aborted or expired while the chunk arrived: its object must not outlive the session
        if (!(await repo.sessionExists(db, id))) await provider.delete(key);
        if (isForeignKeyViolation(err)) throw filesErrors.uploadNotFound();
        throw err;
      }
      return { index, size: expected, expiresAt };
    },

    /**
     * Assembles the file. A repeat of a completed session answers the same file. `within` runs
     * in the transaction that records the file and completes the session (the drive's node and
     * version): when it throws, nothing is recorded and the session is open again.
     */
    async complete(
      scope: Scope,
      id: number,
      opts: SessionAccess & { within?: (tx: Db, file: CompletedFile) => Promise<void> } = {},
    ) {
      const session = await sessionOrThrow(scope, id, opts);
      if (session.status === 'completed' && session.fileId !== null) return { fileId: session.fileId };
      const received = new Set(await repo.receivedChunks(db, id));
      const missing: number[] = [];
      for (let i = 0; i < session.totalChunks; i++) if (!received.has(i)) missing.push(i);
      if (missing.length) throw filesErrors.chunksMissing(missing);
      if (!(await repo.claimForCompletion(db, id, later(COMPLETING_TTL_MS)))) throw filesErrors.uploadInProgress();

      const provider = await deps.resolver.byConfigId(session.storageConfigId);
      const policy = await policyOf(scope, session);
      const abort = async (err: unknown): Promise<never> => {
        await discardSession(id);
        throw err;
      };
      try {
        const content = await assemble({ configId: session.storageConfigId, provider }, session, policy, abort);
        // §4.3 rule 3: the declared hash is only a precheck input; the server's own hash decides.
        if (session.declaredSha256 && session.declaredSha256 !== content.sha256) {
          await deps.store.discard(content);
          await abort(filesErrors.hashMismatch());
        }
        const file = await deps.store.commit(
          scope,
          content,
          {
            name: session.name,
            mime: content.mime,
            declaredMime: session.declaredMime,
            visibility: session.visibility,
          },
          undefined,
          async (tx, fileId) => {
            if (!(await repo.markCompleted(tx, id, fileId))) throw filesErrors.uploadNotFound();
            await opts.within?.(tx, { id: fileId, size: content.size, mime: content.mime, sha256: content.sha256 });
          },
        );
        await deleteChunkObjects(provider, id, received);
        return { fileId: file.id };
      } catch (err) {
        // Storage trouble: the session stays, the client may complete again.
        await repo.reopen(db, id);
        throw err;
      }
    },

    /** Aborts a session and deletes its chunks (not while a complete is assembling it). */
    async abort(scope: Scope, id: number, access: SessionAccess = {}) {
      const session = await sessionOrThrow(scope, id, access);
      if (!(await discardSession(session.id, { notStatus: 'completing' }))) throw filesErrors.uploadInProgress();
    },

    /** Which of these sessions still exist and have not expired (an owner's cleanup of its own bindings). */
    liveSessionIds: async (ids: number[], now: Date = clock()) => repo.liveSessionIds(db, ids, now),

    /** Deletes sessions past their expiry with their chunks (system task `files.expireUploadSessions`). */
    async expireUploadSessions(now: Date = clock()) {
      let expired = 0;
      for (const id of await repo.expiredSessionIds(db, now, 500)) {
        if (await discardSession(id, { expiredBefore: now })) expired++;
      }
      return { expired };
    },
  };
}

export type ChunkedUploads = ReturnType<typeof createChunkedUploads>;
