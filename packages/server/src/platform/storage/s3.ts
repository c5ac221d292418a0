import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable, Transform } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { assertSafeKey } from './local.ts';
import { type ByteRange, StorageNotFound, type StorageProvider, StorageUnavailable } from './provider.ts';

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, OSS/COS in S3 mode, s3rver).
 * Puts stream: a body smaller than one part goes up as one PutObject; a larger one as a
 * multipart upload, one part buffered at a time (memory stays at `partSizeBytes`, whatever the
 * object size), aborted on any error so no half object or dangling upload remains.
 */
export type S3ProviderOptions = {
  /** e.g. https://s3.eu-central-1.amazonaws.com or http://minio:9000; omitted = AWS default */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO, s3rver) */
  forcePathStyle?: boolean;
  /** key prefix inside the bucket, e.g. `atrium/` */
  prefix?: string;
  /** multipart part size; at least 5 MiB (S3's minimum); default 8 MiB */
  partSizeBytes?: number;
  /** TCP connect timeout; default 2 s */
  connectTimeoutMs?: number;
  /** longest silence on a connection (no byte sent or received) before the call fails; default 5 s */
  idleTimeoutMs?: number;
  /** SDK attempts per call (retries + 1); default 3 */
  maxAttempts?: number;
  /** DNS lookup of the connections (an egress guard); default the system's */
  lookup?: LookupFunction;
  /** told of each call that failed with StorageUnavailable (the dependency failure counter) */
  onUnavailable?: () => void;
};

export type S3Provider = StorageProvider & { readonly kind: 's3'; close(): void };

const MIN_PART = 5 * 1024 * 1024;

type Sdk = typeof import('@aws-sdk/client-s3');
let sdkLoad: Promise<Sdk> | undefined;
/** The AWS SDK (hundreds of modules, ~20 MB resident) is loaded on first use: most installations store files locally. */
const loadSdk = () => {
  sdkLoad ??= import('@aws-sdk/client-s3');
  return sdkLoad;
};

type SdkError = { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
const isNotFound = (err: unknown) => {
  const e = err as SdkError | null;
  return (
    e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.Code === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404
  );
};

export function createS3Provider(opts: S3ProviderOptions): S3Provider {
  const partSize = Math.max(opts.partSizeBytes ?? 8 * 1024 * 1024, MIN_PART);
  const bucket = opts.bucket;
  const prefix = (opts.prefix ?? '').replace(/^\/+|\/+$/g, '');
  let client: S3Client | undefined;
  const s3 = async () => {
    const sdk = await loadSdk();
    client ??= new sdk.S3Client({
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      region: opts.region,
      forcePathStyle: opts.forcePathStyle ?? false,
      credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey },
      maxAttempts: opts.maxAttempts ?? 3,
      // Only send/check checksums where S3 requires them: many S3-compatible servers reject the
      // newer default CRC32 trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Bounded: a stopped server fails at once, a frozen one after the idle timeout (per attempt).
      requestHandler: {
        connectionTimeout: opts.connectTimeoutMs ?? 2_000,
        requestTimeout: opts.idleTimeoutMs ?? 5_000,
        ...(opts.lookup
          ? {
              httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, lookup: opts.lookup }),
              httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, lookup: opts.lookup }),
            }
          : {}),
      },
    });
    return { sdk, client: guarded(client) };
  };
  /** Every failed call but "not found" is StorageUnavailable: the caller answers 503, not 500. */
  const guarded = (c: S3Client): Pick<S3Client, 'send'> => ({
    // the SDK's overloads typed once; every command goes through here
    send: (async (command: Parameters<S3Client['send']>[0]) => {
      try {
        return await c.send(command);
      } catch (err) {
        if (isNotFound(err)) throw err;
        opts.onUnavailable?.();
        throw new StorageUnavailable(err);
      }
    }) as S3Client['send'],
  });
  const keyOf = (key: string) => {
    assertSafeKey(key);
    return prefix ? `${prefix}/${key}` : key;
  };

  async function multipart(Key: string, contentType: string, first: Buffer, rest: AsyncIterator<Buffer>) {
    const { sdk, client } = await s3();
    const created = await client.send(
      new sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: contentType }),
    );
    const UploadId = created.UploadId;
    if (!UploadId) throw new Error('S3 did not return an upload id');
    const parts: { ETag: string; PartNumber: number }[] = [];
    let size = 0;
    try {
      const upload = async (body: Buffer) => {
        const PartNumber = parts.length + 1;
        const r = await client.send(
          new sdk.UploadPartCommand({
            Bucket: bucket,
            Key,
            UploadId,
            PartNumber,
            Body: body,
            ContentLength: body.length,
          }),
        );
        parts.push({ ETag: r.ETag ?? '', PartNumber });
        size += body.length;
      };
      await upload(first);
      for (;;) {
        const next = await collect(rest, partSize);
        if (next.buffer.length > 0) await upload(next.buffer);
        if (next.done) break;
      }
      await client.send(
        new sdk.CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
      );
      return { size };
    } catch (err) {
      await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId })).catch(() => undefined);
      throw err;
    }
  }

  return {
    kind: 's3',

    async put(key, body, { contentType }) {
      const Key = keyOf(key);
      const it = body[Symbol.asyncIterator]() as AsyncIterator<Buffer | string> as AsyncIterator<Buffer>;
      try {
        const first = await collect(it, partSize);
        if (first.done) {
          const { sdk, client } = await s3();
          await client.send(
            new sdk.PutObjectCommand({
              Bucket: bucket,
              Key,
              Body: first.buffer,
              ContentLength: first.buffer.length,
              ContentType: contentType,
            }),
          );
          return { size: first.buffer.length };
        }
        return await multipart(Key, contentType, first.buffer, it);
      } catch (err) {
        body.destroy();
        throw err;
      }
    },

    async get(key, range?: ByteRange) {
      try {
        const { sdk, client } = await s3();
        const r = await client.send(
          new sdk.GetObjectCommand({
            Bucket: bucket,
            Key: keyOf(key),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        const body = r.Body;
        if (!body) throw new StorageNotFound(key);
        const stream = body instanceof Readable ? body : Readable.fromWeb(body as never);
        return range ? exactRange(stream, range, r.ContentRange) : stream;
      } catch (err) {
        if (isNotFound(err)) throw new StorageNotFound(key);
        throw err;
      }
    },

    async head(key) {
      try {
        const { sdk, client } = await s3();
        const r = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
        return { size: r.ContentLength ?? 0 };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async delete(key) {
      try {
        const { sdk, client } = await s3();
        await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },

    close: () => client?.destroy(),
  };
}

/** Reads from `it` until `limit` bytes are gathered or the stream ends. */
async function collect(it: AsyncIterator<Buffer>, limit: number): Promise<{ buffer: Buffer; done: boolean }> {
  const chunks: Buffer[] = [];
  let n = 0;
  while (n < limit) {
    const r = await it.next();
    if (r.done) return { buffer: Buffer.concat(chunks, n), done: true };
    const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    chunks.push(chunk);
    n += chunk.length;
  }
  return { buffer: Buffer.concat(chunks, n), done: false };
}

/**
 * Some S3-compatible servers ignore a Range or widen it (s3rver answers `bytes=0-0` with the
 * whole object). The answer's Content-Range says what came; anything around the asked bytes is
 * cut off here, so callers always get exactly `range`.
 */
function exactRange(stream: Readable, range: ByteRange, contentRange: string | undefined): Readable {
  const want = range.end - range.start + 1;
  const m = contentRange ? /^bytes (\d+)-(\d+)\//.exec(contentRange) : null;
  const gotStart = m ? Number(m[1]) : 0;
  const gotEnd = m ? Number(m[2]) : Number.POSITIVE_INFINITY;
  if (gotStart > range.start) {
    stream.destroy();
    throw new Error(`storage answered bytes from ${gotStart}, asked from ${range.start}`);
  }
  if (gotStart === range.start && gotEnd === range.end) return stream;
  let skip = range.start - gotStart;
  let take = want;
  const slicer = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (take === 0) return cb();
      let c = chunk;
      if (skip > 0) {
        const n = Math.min(skip, c.length);
        skip -= n;
        c = c.subarray(n);
      }
      if (take > 0 && c.length > 0) {
        const part = c.subarray(0, take);
        take -= part.length;
        this.push(part);
      }
      if (take === 0) {
        this.push(null);
        stream.unpipe(slicer);
        stream.destroy();
      }
      cb();
    },
  });
  stream.on('error', (err) => slicer.destroy(err));
  slicer.on('close', () => stream.destroy());
  return stream.pipe(slicer);
}
