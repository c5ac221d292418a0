import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageNotFound, StorageUnavailable } from '../../src/platform/storage/provider.ts';
import { createS3Provider, type S3Provider } from '../../src/platform/storage/s3.ts';
import { startS3rver, type TestS3 } from './storage-s3rver.ts';

/** The S3 provider against a real S3-compatible server (s3rver), no mocks. */
let s3: TestS3;
let provider: S3Provider;
const providers: S3Provider[] = [];

function make(extra: Partial<Parameters<typeof createS3Provider>[0]> = {}): S3Provider {
  const p = createS3Provider({
    endpoint: s3.endpoint,
    region: s3.region,
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    ...extra,
  });
  providers.push(p);
  return p;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** A stream of `size` pseudo-random bytes made on the fly in 64 KiB pieces (never one buffer). */
function generated(size: number, seed: number): { stream: Readable; sha256: Promise<string> } {
  const hash = createHash('sha256');
  let left = size;
  let n = seed;
  let resolve!: (v: string) => void;
  const sha256 = new Promise<string>((r) => {
    resolve = r;
  });
  const stream = new Readable({
    read() {
      if (left === 0) {
        resolve(hash.digest('hex'));
        this.push(null);
        return;
      }
      const len = Math.min(64 * 1024, left);
      const buf = Buffer.allocUnsafe(len);
      for (let i = 0; i < len; i++) {
        n = (n * 1103515245 + 12345) & 0x7fffffff;
        buf[i] = n & 0xff;
      }
      left -= len;
      hash.update(buf);
      this.push(buf);
    },
  });
  return { stream, sha256 };
}

beforeAll(async () => {
  s3 = await startS3rver();
  provider = make();
});

afterAll(async () => {
  for (const p of providers) p.close();
  await s3?.stop();
});

describe('S3 provider against s3rver', () => {
  it('puts, heads, gets and deletes an object', async () => {
    const body = randomBytes(3000);
    const put = await provider.put('objects/ab/one.bin', Readable.from([body.subarray(0, 1000), body.subarray(1000)]), {
      contentType: 'application/octet-stream',
    });
    expect(put).toEqual({ size: 3000 });
    expect(await provider.head('objects/ab/one.bin')).toEqual({ size: 3000 });
    expect((await readAll(await provider.get('objects/ab/one.bin'))).equals(body)).toBe(true);

    await provider.delete('objects/ab/one.bin');
    expect(await provider.head('objects/ab/one.bin')).toBeNull();
  });

  it('reads a byte range (inclusive ends, as HTTP Range)', async () => {
    const body = Buffer.from('0123456789abcdefghij');
    await provider.put('ranges/r.txt', Readable.from([body]), { contentType: 'text/plain' });
    expect((await readAll(await provider.get('ranges/r.txt', { start: 5, end: 9 }))).toString()).toBe('56789');
    expect((await readAll(await provider.get('ranges/r.txt', { start: 0, end: 0 }))).toString()).toBe('0');
    expect((await readAll(await provider.get('ranges/r.txt', { start: 15, end: 19 }))).toString()).toBe('fghij');
  });

  it('answers not found: get throws StorageNotFound, head is null, delete is quiet', async () => {
    await expect(provider.get('missing/nothing.bin')).rejects.toBeInstanceOf(StorageNotFound);
    await expect(provider.get('missing/nothing.bin', { start: 0, end: 3 })).rejects.toBeInstanceOf(StorageNotFound);
    expect(await provider.head('missing/nothing.bin')).toBeNull();
    await expect(provider.delete('missing/nothing.bin')).resolves.toBeUndefined();
  });

  it('puts an empty object', async () => {
    expect(await provider.put('empty/zero', Readable.from([]), { contentType: 'text/plain' })).toEqual({ size: 0 });
    expect(await provider.head('empty/zero')).toEqual({ size: 0 });
    expect((await readAll(await provider.get('empty/zero'))).length).toBe(0);
  });

  it('streams a body larger than a part as a multipart upload, byte for byte', async () => {
    const size = 11 * 1024 * 1024 + 123; // three parts of 5 MiB, 5 MiB and the rest
    const small = make({ partSizeBytes: 5 * 1024 * 1024 });
    const { stream, sha256 } = generated(size, 7);
    expect(await small.put('big/multi.bin', stream, { contentType: 'application/octet-stream' })).toEqual({ size });
    expect(await small.head('big/multi.bin')).toEqual({ size });
    const back = createHash('sha256');
    for await (const c of await small.get('big/multi.bin')) back.update(c as Buffer);
    expect(back.digest('hex')).toBe(await sha256);
    const tail = await readAll(await small.get('big/multi.bin', { start: size - 10, end: size - 1 }));
    expect(tail.length).toBe(10);
  });

  it('writes nothing when the body fails midway (the multipart upload is aborted)', async () => {
    const small = make({ partSizeBytes: 5 * 1024 * 1024 });
    const failing = Readable.from(
      (async function* () {
        yield Buffer.alloc(6 * 1024 * 1024, 1);
        throw new Error('client went away');
      })(),
    );
    await expect(small.put('broken/upload.bin', failing, { contentType: 'application/octet-stream' })).rejects.toThrow(
      'client went away',
    );
    expect(await small.head('broken/upload.bin')).toBeNull();
  });

  it('keeps objects under the key prefix and apart from unprefixed ones', async () => {
    const prefixed = make({ prefix: '/tenant-7/files/' });
    await prefixed.put('a.txt', Readable.from([Buffer.from('inside')]), { contentType: 'text/plain' });
    expect(await prefixed.head('a.txt')).toEqual({ size: 6 });
    expect(await provider.head('tenant-7/files/a.txt')).toEqual({ size: 6 });
    expect(await provider.head('a.txt')).toBeNull();
  });

  it('replaces an object put twice under one key', async () => {
    await provider.put('replace/k', Readable.from([Buffer.from('first version')]), { contentType: 'text/plain' });
    await provider.put('replace/k', Readable.from([Buffer.from('second')]), { contentType: 'text/plain' });
    expect((await readAll(await provider.get('replace/k'))).toString()).toBe('second');
  });

  it('refuses unsafe keys before any request', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a//b', 'a/../b', '']) {
      await expect(provider.head(key)).rejects.toThrow(/invalid storage key/);
    }
  });

  it('fails with 503 storage_unavailable, the server error as its cause, when the credentials are wrong', async () => {
    // s3rver checks the access key id (it does not verify SigV4 signatures)
    const wrong = make({ accessKeyId: 'AKIAUNKNOWN', maxAttempts: 1 });
    const err = await wrong
      .put('x/y', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageUnavailable);
    expect(err).toMatchObject({ status: 503, key: 'ops.storage_unavailable' });
    expect(String((err as StorageUnavailable).cause)).toMatch(/access key id/i);
    expect(await provider.head('x/y')).toBeNull();
  });
});
