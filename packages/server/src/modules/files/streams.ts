import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';

/**
 * Stream helpers of the upload path. Bodies are never collected in memory: only the first
 * few KB are held (for content sniffing), everything else flows chunk by chunk from the
 * request to the storage provider, hashed and counted on the way.
 */

/** Thrown into the stream when more bytes arrive than allowed. */
export class StreamTooLong extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`stream longer than ${limit} bytes`);
    this.limit = limit;
  }
}

/**
 * Reads the first `n` bytes (or fewer when the stream is shorter) and gives back a stream of
 * the whole content, those bytes included. Only the head is buffered.
 */
export async function peek(source: AsyncIterable<Buffer>, n: number): Promise<{ head: Buffer; body: Readable }> {
  const it = source[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < n) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
    parts.push(chunk);
    length += chunk.length;
  }
  // At most n bytes plus one chunk: the sniffing window, not the body.
  const first = Buffer.concat(parts);
  async function* whole() {
    if (first.length > 0) yield first;
    if (done) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  const body = Readable.from(whole(), { objectMode: false });
  // Abandoning the body (a refused upload) releases the source too.
  body.once('close', () => void it.return?.());
  return { head: first.subarray(0, n), body };
}

export type Metered = { stream: Readable; sha256: () => string; bytes: () => number };

/**
 * Passes `source` through SHA-256 and a byte counter; past `maxBytes` the stream fails with
 * StreamTooLong (so a provider's put fails and writes nothing).
 */
export function metered(source: Readable, maxBytes: number): Metered {
  const hash = createHash('sha256');
  let count = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      count += chunk.length;
      if (count > maxBytes) return cb(new StreamTooLong(maxBytes));
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  let digest: string | null = null;
  const stream = pipeline(source, meter, () => {}) as Readable;
  return {
    stream,
    sha256: () => {
      digest ??= hash.digest('hex');
      return digest;
    },
    bytes: () => count,
  };
}

/** One stream of several streams, opened one after the other (chunks of an upload, in order). */
export function concatenated(open: (index: number) => Promise<Readable>, count: number): Readable {
  async function* all() {
    for (let i = 0; i < count; i++) {
      const part = await open(i);
      for await (const chunk of part) yield chunk as Buffer;
    }
  }
  return Readable.from(all(), { objectMode: false });
}
