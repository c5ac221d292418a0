import type { Readable } from 'node:stream';
import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { rowOrThrow } from '../../platform/db/sql.ts';
import type { PublicLinks } from '../../platform/http/public-links.ts';
import { type ByteRange, StorageNotFound } from '../../platform/storage/provider.ts';
import { filesErrors } from './errors.ts';
import { SNIFF_BYTES } from './file-guards.ts';
import * as repo from './file-repository.ts';
import { type FileMeta, type ObjectStore, writeContent } from './object-store-service.ts';
import type { References } from './references.ts';
import type { StorageResolver } from './storage-resolver.ts';
import { peek, StreamTooLong } from './streams.ts';
import type { FileVisibility } from './tables.ts';
import {
  checkContent,
  checkName,
  generalUploadLimits,
  tooLargeError,
  type UploadLimits,
  type UploadPolicy,
} from './upload-policy.ts';

export type FileView = ReturnType<typeof toFileView>;

export function toFileView(f: repo.FileRow & { sha256: string }, links: PublicLinks) {
  return {
    id: f.id,
    name: f.name,
    mime: f.mime,
    declaredMime: f.declaredMime,
    size: f.size,
    sha256: f.sha256,
    visibility: f.visibility,
    ownerUserId: f.ownerUserId,
    createdAt: f.createdAt,
    url: links.to(`/api/files/${f.id}/content`),
  };
}

export type StoreInput = {
  body: Readable;
  name: string;
  declaredMime: string | null;
  visibility: FileVisibility;
  /** bytes; past it the upload fails with StreamTooLong and stores nothing */
  maxBytes: number;
  policy: UploadPolicy;
  /** the first reference; default the upload's own `{ type: 'upload', id: <file id> }` */
  owner?: repo.RefOwner;
};

/** Managed files: upload, metadata, list, delete (drop the upload's reference) and content. */
export function createFilesService(
  ctx: AppContext,
  deps: { resolver: StorageResolver; store: ObjectStore; refs: References },
) {
  const { db, links } = ctx;

  const generalOrThrow = (scope: Scope, id: number) =>
    rowOrThrow(repo.findGeneral(db, scope, id), filesErrors.fileNotFound);

  /**
   * Stores a stream as a managed file of the caller's tenant (the one way bytes become a
   * managed file; the drive calls it with visibility `restricted` and its own policy). The
   * name and the first bytes are checked before anything is written.
   */
  async function store(scope: Scope, input: StoreInput) {
    checkName(input.name, input.policy);
    const p = await peek(input.body, SNIFF_BYTES);
    let meta: FileMeta;
    try {
      const { mime } = await checkContent(p.head, input.declaredMime, input.policy);
      meta = { name: input.name, mime, declaredMime: input.declaredMime, visibility: input.visibility };
    } catch (err) {
      p.body.destroy();
      throw err;
    }
    const target = await deps.resolver.forNewObject(scope.tenantId);
    const content = await writeContent(target, p.body, input.maxBytes, meta.mime);
    const file = await deps.store.commit(scope, content, meta, input.owner);
    return toFileView({ ...file, sha256: content.sha256 }, links);
  }

  return {
    store,

    /** the tenant's limits of a single-request upload, read before its body */
    uploadLimits: (scope: Scope) => generalUploadLimits(ctx.settings, scope.tenantId),

    /** A single-request upload within the tenant's limits (`files` settings). */
    async upload(
      scope: Scope,
      limits: UploadLimits,
      input: { body: Readable; name: string; declaredMime: string | null; visibility: 'public' | 'private' },
    ) {
      try {
        return await store(scope, { ...input, maxBytes: limits.singleBytes, policy: limits.policy });
      } catch (err) {
        if (err instanceof StreamTooLong) throw tooLargeError(limits, err.limit);
        throw err;
      }
    },

    list: async (scope: Scope, q: Parameters<typeof repo.pageFiles>[2]) => {
      const page = await repo.pageFiles(db, scope, q);
      return { ...page, list: page.list.map((f) => toFileView(f, links)) };
    },

    get: async (scope: Scope, id: number) => toFileView(await generalOrThrow(scope, id), links),

    /** Drops the upload's own reference; other owners (a notice, an export) keep the file alive. */
    async remove(scope: Scope, id: number) {
      await generalOrThrow(scope, id);
      await db.transaction(async (tx) => {
        await deps.refs.dropRef(tx, scope, id, { type: 'upload', id });
      });
    },

    /**
     * The file a content request may read: a file of the caller's tenant (signed-in callers),
     * else any public file. Drive files (restricted) are never served here (spec §4.3 rule 4).
     */
    async readable(scope: Scope, id: number) {
      const own = scope.principal ? await repo.findGeneral(db, scope, id) : null;
      const row = own ?? (await repo.findPublic(db, id));
      if (!row) throw filesErrors.fileNotFound();
      return row;
    },

    /**
     * A file its owner serves through its own access rules (a task result, a drive version):
     * found only while `owner` references it, whatever its visibility.
     */
    async ownedBy(scope: Scope, id: number, owner: repo.RefOwner) {
      const row = await repo.findOwnedBy(db, scope, id, owner);
      if (!row) throw filesErrors.fileNotFound();
      return row;
    },

    /** The file an owner holding one file references (a drive version), found in one statement. */
    async referencedBy(scope: Scope, owner: repo.RefOwner) {
      const row = await repo.findReferencedBy(db, scope, owner);
      if (!row) throw filesErrors.fileNotFound();
      return row;
    },

    /** The bytes of a file, or of `range` of them. */
    async open(file: repo.FileWithObject, range?: ByteRange): Promise<Readable> {
      const provider = await deps.resolver.byConfigId(file.storageConfigId);
      try {
        return await provider.get(file.storageKey, range);
      } catch (err) {
        if (err instanceof StorageNotFound) throw filesErrors.fileNotFound();
        throw err;
      }
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;
