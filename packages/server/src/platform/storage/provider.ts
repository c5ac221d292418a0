import type { Readable } from 'node:stream';
import { AppError } from '../http/errors.ts';

/**
 * Where object bytes live. Every managed file, upload chunk and export result goes through one
 * of these; callers never touch a disk path or a bucket directly. Keys are opaque
 * `[a-z0-9/._-]` paths chosen by the files module.
 */
export type ByteRange = { start: number; end: number }; // inclusive, as in HTTP Range

export interface StorageProvider {
  readonly kind: 'local' | 's3';
  /** Streams `body` to `key` (replacing it); resolves with the bytes written. */
  put(key: string, body: Readable, opts: { contentType: string }): Promise<{ size: number }>;
  /**
   * Optional: stores the concatenation of the objects `parts` as `key` without the bytes passing
   * through the caller's streams (the local provider copies through reused buffers). `each` sees
   * every chunk in order, to hash it, and must not keep it.
   */
  concat?(key: string, parts: string[], each?: (chunk: Buffer) => void): Promise<{ size: number }>;
  /** A stream of the object, or of `range` of it; throws StorageNotFound when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size of the object, or null when absent. */
  head(key: string): Promise<{ size: number } | null>;
  /** Deletes the object; deleting an absent object is not an error. */
  delete(key: string): Promise<void>;
}

export class StorageNotFound extends Error {
  constructor(key: string) {
    super(`object ${key} not found`);
  }
}

/**
 * The storage could not be reached or refused the call (connection refused, timed out, 5xx, a
 * credential it no longer takes): a 503 naming the part, never a 500; the log has the cause.
 */
export class StorageUnavailable extends AppError {
  constructor(cause: unknown) {
    super(503, 'ops.storage_unavailable', 'The file storage does not answer; try again shortly', {
      retryAfter: 5,
      internal: cause instanceof Error ? `${cause.name}: ${cause.message}` : undefined,
    });
    this.cause = cause;
  }
}
