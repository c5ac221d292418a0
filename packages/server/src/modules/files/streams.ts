import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';

/**
 * Stream helpers of the upload path. Bodies are never collected in memory: only the first
 * few KB are held (for content sniffing), everything else flows chunk by chunk from the
 * request to the storage provider, hashed and counted on the way.
 */

/** Bytes a stage of the upload path holds before it pushes back on its source. */
export const STREAM_BUFFER = 1024 * 1024;

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
 * the whole content, those bytes included: the source itself, the bytes read put back with
 * `unshift`, so the body flows on without an extra stage. Only the head is buffered.
 */
export async function peek(source: Readable, n: number): Promise<{ head: Buffer; body: Readable }> {
  const parts: Buffer[] = [];
  let length = 0;
  while (length < n && !source.readableEnded) {
    if (source.destroyed) throw source.errored ?? new Error('stream closed before its end');
    const chunk: Buffer | null = source.read();
    if (chunk === null) await readableOrEnd(source);
    else {
      parts.push(chunk);
      length += chunk.length;
    }
  }
  // At most n bytes plus one chunk: the sniffing window, not the body.
  const first = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  if (source.readableEnded) return { head: first.subarray(0, n), body: Readable.from([first], { objectMode: false }) };
  if (first.length > 0) source.unshift(first);
  return { head: first.subarray(0, n), body: source };
}

/** Resolves when `source` has data or has ended; rejects when it fails or closes early. */
function readableOrEnd(source: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      source.off('readable', ok);
      source.off('end', ok);
      source.off('error', done);
      source.off('close', closed);
      if (err) reject(err);
      else resolve();
    };
    const ok = () => done();
    const closed = () => done(source.readableEnded ? undefined : new Error('stream closed before its end'));
    source.on('readable', ok);
    source.on('end', ok);
    source.on('error', done);
    source.on('close', closed);
  });
}

export type Metered = { stream: Readable; sha256: () => string; bytes: () => number };

/**
 * Passes `source` through SHA-256 and a byte counter; past `maxBytes` the stream fails with
 * StreamTooLong (so a provider's put fails and writes nothing).
 */
export function metered(source: Readable, maxBytes: number, opts: { hash?: boolean } = {}): Metered {
  // an upload chunk is only counted: its hash is taken once, over the whole file, on complete
  const hash = opts.hash === false ? null : createHash('sha256');
  let count = 0;
  const meter = new Transform({
    // room for several 64 KiB socket reads while the provider writes (the default holds one)
    highWaterMark: STREAM_BUFFER,
    transform(chunk: Buffer, _enc, cb) {
      count += chunk.length;
      if (count > maxBytes) return cb(new StreamTooLong(maxBytes));
      hash?.update(chunk);
      cb(null, chunk);
    },
  });
  let digest: string | null = null;
  const stream = pipeline(source, meter, () => {}) as Readable;
  return {
    stream,
    sha256: () => {
      if (!hash) throw new Error('metered without a hash');
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
