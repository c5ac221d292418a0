import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalProvider } from '../../src/platform/storage/local.ts';
import { StorageNotFound, type StorageProvider } from '../../src/platform/storage/provider.ts';

/** The local disk provider on a temporary directory. */
let root: string;
let provider: StorageProvider;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'atrium-local-'));
  provider = createLocalProvider(join(root, 'files'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('local storage provider', () => {
  it('puts, heads, gets and deletes an object under the root', async () => {
    const body = randomBytes(70_000);
    const put = await provider.put('objects/ab/cd/abcd.bin', Readable.from([body.subarray(0, 1), body.subarray(1)]), {
      contentType: 'application/octet-stream',
    });
    expect(put).toEqual({ size: 70_000 });
    expect(await provider.head('objects/ab/cd/abcd.bin')).toEqual({ size: 70_000 });
    expect((await readFile(join(root, 'files/objects/ab/cd/abcd.bin'))).equals(body)).toBe(true);
    expect((await readAll(await provider.get('objects/ab/cd/abcd.bin'))).equals(body)).toBe(true);

    await provider.delete('objects/ab/cd/abcd.bin');
    expect(await provider.head('objects/ab/cd/abcd.bin')).toBeNull();
  });

  it('reads byte ranges with inclusive ends', async () => {
    await provider.put('r/range.txt', Readable.from([Buffer.from('0123456789')]), { contentType: 'text/plain' });
    expect((await readAll(await provider.get('r/range.txt', { start: 2, end: 4 }))).toString()).toBe('234');
    expect((await readAll(await provider.get('r/range.txt', { start: 0, end: 0 }))).toString()).toBe('0');
    expect((await readAll(await provider.get('r/range.txt', { start: 9, end: 9 }))).toString()).toBe('9');
  });

  it('answers not found: get throws StorageNotFound, head is null, delete is quiet', async () => {
    await expect(provider.get('nope/missing')).rejects.toBeInstanceOf(StorageNotFound);
    expect(await provider.head('nope/missing')).toBeNull();
    await expect(provider.delete('nope/missing')).resolves.toBeUndefined();
    // a directory is not an object
    await provider.put('dir/inner/x', Readable.from([Buffer.from('x')]), { contentType: 'text/plain' });
    expect(await provider.head('dir/inner')).toBeNull();
  });

  it('refuses keys that could leave the root', async () => {
    const bad = [
      '../escape',
      'a/../../escape',
      '/etc/passwd',
      'a//b',
      './a',
      'a/./b',
      'a/',
      '',
      'a\\b',
      '.tmp/x',
      '.tmp',
    ];
    for (const key of bad) {
      await expect(provider.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain' })).rejects.toThrow(
        /invalid storage key/,
      );
      await expect(provider.get(key)).rejects.toThrow(/invalid storage key/);
      await expect(provider.head(key)).rejects.toThrow(/invalid storage key/);
      await expect(provider.delete(key)).rejects.toThrow(/invalid storage key/);
    }
    expect(await readdir(root)).toEqual(['files']);
  });

  it('never shows a reader half an object: the old bytes stay until the new ones are complete', async () => {
    await provider.put('atomic/obj', Readable.from([Buffer.from('old content')]), { contentType: 'text/plain' });
    const body = new PassThrough();
    const writing = provider.put('atomic/obj', body, { contentType: 'text/plain' });
    body.write(Buffer.from('new '));
    await new Promise((r) => setImmediate(r));
    // mid-write the reader still sees the previous object, whole
    expect((await readAll(await provider.get('atomic/obj'))).toString()).toBe('old content');
    body.end(Buffer.from('content, longer'));
    expect(await writing).toEqual({ size: 19 });
    expect((await readAll(await provider.get('atomic/obj'))).toString()).toBe('new content, longer');
  });

  it('keeps the previous object and leaves no temporary file when the body fails', async () => {
    await provider.put('fail/obj', Readable.from([Buffer.from('kept')]), { contentType: 'text/plain' });
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from('partial');
        throw new Error('client went away');
      })(),
    );
    await expect(provider.put('fail/obj', failing, { contentType: 'text/plain' })).rejects.toThrow('client went away');
    expect((await readAll(await provider.get('fail/obj'))).toString()).toBe('kept');
    expect(await readdir(join(root, 'files/.tmp'))).toEqual([]);
  });

  it('stores an empty object', async () => {
    expect(await provider.put('empty', Readable.from([]), { contentType: 'text/plain' })).toEqual({ size: 0 });
    expect(await provider.head('empty')).toEqual({ size: 0 });
  });
});
