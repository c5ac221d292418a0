import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { isUniqueViolation } from '../../platform/db/sql.ts';
import type { StorageProvider } from '../../platform/storage/provider.ts';
import { fileRows, insertRef, type RefOwner } from './file-repository.ts';
import * as objects from './object-repository.ts';
import { metered } from './streams.ts';
import type { FileVisibility } from './tables.ts';

/**
 * Content-addressed storage of uploads. The bytes are first written to a fresh key while
 * being hashed; then, in one transaction, an existing live object with the same SHA-256 (in
 * the same storage configuration) gains the reference and the fresh copy is deleted, or the
 * fresh key is kept as a new object. Same content → one object (the drive's instant upload).
 */
export type WrittenContent = {
  configId: number | null;
  provider: StorageProvider;
  key: string;
  sha256: string;
  size: number;
};

export type FileMeta = {
  name: string;
  mime: string;
  declaredMime: string | null;
  visibility: FileVisibility;
};

export const newObjectKey = () => `objects/${randomUUID()}`;

/** Streams `body` to a fresh key, hashing it; past `maxBytes` it fails and leaves nothing. */
export async function writeContent(
  target: { configId: number | null; provider: StorageProvider },
  body: Readable,
  maxBytes: number,
  contentType: string,
): Promise<WrittenContent> {
  const key = newObjectKey();
  const m = metered(body, maxBytes);
  try {
    await target.provider.put(key, m.stream, { contentType });
  } catch (err) {
    await target.provider.delete(key).catch(() => undefined);
    throw err;
  }
  return { ...target, key, sha256: m.sha256(), size: m.bytes() };
}

export function createObjectStore(ctx: AppContext) {
  const discard = async (content: WrittenContent) => {
    try {
      await content.provider.delete(content.key);
    } catch (err) {
      ctx.log.warn({ err, key: content.key }, 'files: could not delete a temporary upload object');
    }
  };

  return {
    discard,

    /**
     * Records written content as a managed file of the caller's tenant with its first reference
     * (`owner`, or the upload's own `{ type: 'upload', id: <file id> }`). A failure deletes the
     * written bytes; nothing is left behind.
     */
    async commit(
      scope: Scope,
      content: WrittenContent,
      meta: FileMeta,
      owner?: RefOwner,
      /** more writes of the caller in the same transaction (a chunked session marked completed) */
      within?: (tx: Db, fileId: number) => Promise<void>,
    ) {
      for (let attempt = 1; ; attempt++) {
        try {
          const { file, reused } = await ctx.db.transaction(async (tx) => {
            const existing = await objects.findByContent(tx, content.configId, content.sha256);
            const reused = existing !== null && (await objects.incrementRefs(tx, existing.id));
            const object =
              reused && existing
                ? existing
                : await objects.insertObject(tx, {
                    storageConfigId: content.configId,
                    sha256: content.sha256,
                    size: content.size,
                    storageKey: content.key,
                  });
            const file = await fileRows.insert(tx, scope, {
              objectId: object.id,
              name: meta.name,
              mime: meta.mime,
              declaredMime: meta.declaredMime,
              size: content.size,
              visibility: meta.visibility,
              ownerUserId: userOf(scope)?.userId ?? null,
            });
            await insertRef(tx, scope, file.id, owner ?? { type: 'upload', id: file.id });
            await within?.(tx, file.id);
            return { file, reused };
          });
          if (reused) await discard(content);
          return file;
        } catch (err) {
          // A concurrent upload of the same bytes created the object first: take its reference.
          if (isUniqueViolation(err) && attempt < 3) continue;
          await discard(content);
          throw err;
        }
      }
    },
  };
}

export type ObjectStore = ReturnType<typeof createObjectStore>;
