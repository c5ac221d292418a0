import type { FileHandle } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';

/**
 * Bytes `start`..`end` (inclusive) of an open file, as a stream that owns the handle. Read as a
 * Readable it allocates a buffer per 1 MiB read, as any stream does; `writeTo` instead copies
 * through buffers it takes back after each write, so a download or a copy leaves no garbage
 * behind. Why it matters: the service's heap is large, and a fresh buffer per chunk (external
 * memory) makes V8 run a full mark-compact every few dozen MiB; profiled, those collections
 * cost more CPU than the copying itself.
 */
const BUFFER = 1024 * 1024;
/** idle buffers kept for the next copy: a few concurrent downloads' worth */
const SPARE_MAX = 8;
const spare: Buffer[] = [];

const takeBuffer = () => spare.pop() ?? Buffer.allocUnsafeSlow(BUFFER);
const giveBack = (b: Buffer) => {
  if (spare.length < SPARE_MAX) spare.push(b);
};

export class FileSlice extends Readable {
  readonly #handle: FileHandle;
  #pos: number;
  readonly #end: number;

  constructor(handle: FileHandle, start: number, end: number) {
    super({ highWaterMark: BUFFER });
    this.#handle = handle;
    this.#pos = start;
    this.#end = end;
  }

  /** Bytes left to read. */
  get remaining(): number {
    return Math.max(0, this.#end - this.#pos + 1);
  }

  override _read(): void {
    const n = Math.min(BUFFER, this.remaining);
    if (n === 0) {
      this.push(null);
      return;
    }
    const buf = Buffer.allocUnsafeSlow(n);
    // at the end of the file (a range past it) the stream ends, as a file ReadStream does
    this.#readInto(buf, n).then(
      (got) => this.push(got),
      (err: Error) => this.destroy(err),
    );
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.#handle.close().then(
      () => cb(err),
      (closeErr: Error) => cb(err ?? closeErr),
    );
  }

  /**
   * Writes the rest of the slice to `dest` (without ending it), reading the next buffer while the
   * previous one is written; `each` sees every chunk before it is written (it must not keep it).
   * Closes the file, whatever happens.
   */
  async writeTo(dest: Writable, each?: (chunk: Buffer) => void): Promise<void> {
    const bufs: Buffer[] = [];
    let writing: Promise<void> | null = null;
    try {
      for (let i = 0; this.remaining > 0; i ^= 1) {
        bufs[i] ??= takeBuffer();
        const buf = bufs[i] as Buffer;
        const chunk = await this.#readInto(buf, Math.min(buf.length, this.remaining));
        // a copy promised `remaining` bytes (a Content-Length, a session size): fewer is a failure
        if (chunk === null) throw new Error('file ended before the expected size');
        each?.(chunk);
        // the other buffer is free again once its write is done
        await writing;
        writing = write(dest, chunk);
        // handled now, thrown where it is awaited (a failure while the next read runs is no crash)
        writing.catch(() => undefined);
      }
      await writing;
    } finally {
      // A failed write may still hold its buffer: only buffers of a clean copy are reused.
      await writing?.then(
        () => bufs.forEach(giveBack),
        () => undefined,
      );
      this.destroy();
    }
  }

  /** The next bytes in `buf`, or null at the end of the file. */
  async #readInto(buf: Buffer, n: number): Promise<Buffer | null> {
    const { bytesRead } = await this.#handle.read(buf, 0, n, this.#pos);
    if (bytesRead === 0) return null;
    this.#pos += bytesRead;
    return bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
  }
}

/** One write, settled by its callback (the bytes are handed on) or by `dest` closing first. */
function write(dest: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const closed = () => reject(new Error('destination closed before the write finished'));
    dest.once('close', closed);
    dest.write(chunk, (err) => {
      dest.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });
}
