import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { FileSlice } from './file-slice.ts';
import { type ByteRange, StorageNotFound, type StorageProvider } from './provider.ts';

/**
 * Objects as files under one root directory (DATA_DIR/files). A key maps to a path below the
 * root and never outside it. A put streams into `<root>/.tmp/<uuid>` and renames into place,
 * so a reader sees the old object or the whole new one, never half of it.
 */
const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export class InvalidStorageKey extends Error {
  constructor(key: string) {
    super(`invalid storage key ${JSON.stringify(key)}`);
  }
}

/** Checks a key is a relative `a/b/c` path of safe segments (no `..`, `.`, empty or absolute). */
export function assertSafeKey(key: string): void {
  if (key.length === 0 || key.length > 1024 || isAbsolute(key) || !KEY.test(key)) throw new InvalidStorageKey(key);
  for (const part of key.split('/')) if (part === '.' || part === '..') throw new InvalidStorageKey(key);
}

/** Bytes a put holds while its previous write runs (then written with one writev). */
const WRITE_BUFFER = 1024 * 1024;

const isNotFound = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';

export function createLocalProvider(rootDir: string): StorageProvider & { readonly rootDir: string } {
  const root = resolve(rootDir);
  const tmpDir = join(root, '.tmp');

  const pathOf = (key: string): string => {
    assertSafeKey(key);
    if (key === '.tmp' || key.startsWith('.tmp/')) throw new InvalidStorageKey(key);
    const full = resolve(root, key);
    if (!full.startsWith(root + sep)) throw new InvalidStorageKey(key);
    return full;
  };

  /**
   * Writes a new object through `<root>/.tmp`: `write` fills the stream, which is fsynced as it
   * closes (the bytes are on disk before the caller records the object), then renamed into place.
   */
  async function stored(key: string, write: (out: WriteStream) => Promise<void>): Promise<{ size: number }> {
    const target = pathOf(key);
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${randomUUID()}.part`);
    try {
      // Up to 1 MiB waits while a write runs; the next write takes it all in one writev.
      const out = createWriteStream(tmp, { flags: 'wx', highWaterMark: WRITE_BUFFER, flush: true });
      try {
        await write(out);
      } finally {
        // closed (and flushed) before the rename, also when `write` failed half-way
        if (!out.closed) await finished(out.destroyed ? out : out.end()).catch(() => undefined);
      }
      await mkdir(dirname(target), { recursive: true });
      await rename(tmp, target);
      return { size: out.bytesWritten };
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  const provider: StorageProvider & { readonly rootDir: string } = {
    kind: 'local',
    rootDir: root,

    async put(key, body) {
      return stored(key, async (out) => {
        await pipeline(body, out);
      });
    },

    async concat(key, parts, each) {
      return stored(key, async (out) => {
        for (const part of parts) await ((await provider.get(part)) as FileSlice).writeTo(out, each);
        await finished(out.end());
      });
    },

    async get(key, range?: ByteRange): Promise<Readable> {
      const path = pathOf(key);
      let handle: Awaited<ReturnType<typeof open>>;
      try {
        handle = await open(path, 'r');
      } catch (err) {
        if (isNotFound(err)) throw new StorageNotFound(key);
        throw err;
      }
      // The handle is opened first so "not found" is an error of get(), not of the stream.
      try {
        // a range needs no stat: past the end the stream ends (a download then fails: FileSlice.writeTo)
        if (range) return new FileSlice(handle, range.start, range.end);
        const { size } = await handle.stat();
        return new FileSlice(handle, 0, size - 1);
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async head(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { size: s.size } : null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async delete(key) {
      try {
        await unlink(pathOf(key));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
  return provider;
}
