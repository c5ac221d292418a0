import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileObjects, fileUploadChunks, fileUploadSessions, managedFiles } from '../../src/modules/files/tables.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, createUserWithPermissions, type TenantFixture } from '../helpers/fixtures.ts';
import { call, createFilesTestApp, type FilesTestApp, putChunk } from './files-helpers.ts';

let t: FilesTestApp;
let other: TenantFixture;
let colleague: { token: string };

beforeAll(async () => {
  t = await createFilesTestApp();
  other = await createTenant(t);
  colleague = await createUserWithPermissions(t, ['system:file:upload', 'system:file:list']);
});
afterAll(async () => t?.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const pdf = (n: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(n - 9)]);
const chunkOf = (data: Buffer, i: number, size = 1024) => data.subarray(i * size, (i + 1) * size);

async function init(body: object, token = t.demoAdminToken) {
  return call(t.app, 'POST', '/api/files/uploads', { token, body });
}

describe('chunked upload', () => {
  it('resumes: chunks 0 and 2, GET lists them, chunk 1, complete; the download equals the original', async () => {
    const data = pdf(2500);
    const res = await init({
      name: 'Quarterly report.pdf',
      size: data.length,
      chunkSize: 1024,
      declaredSha256: sha256(data),
    });
    expect(res.statusCode, res.body).toBe(201);
    const session = res.json().data;
    expect(session).toMatchObject({
      chunkSize: 1024,
      totalChunks: 3,
      receivedChunks: [],
      status: 'open',
      fileId: null,
    });
    expect(Date.parse(session.expiresAt)).toBeGreaterThan(Date.now());

    expect((await putChunk(t, t.demoAdminToken, session.id, 0, chunkOf(data, 0))).statusCode).toBe(200);
    expect((await putChunk(t, t.demoAdminToken, session.id, 2, chunkOf(data, 2))).json().data).toMatchObject({
      index: 2,
      size: 2500 - 2048,
    });
    // a repeat of the same chunk replaces it
    expect((await putChunk(t, t.demoAdminToken, session.id, 0, chunkOf(data, 0))).statusCode).toBe(200);
    const resumed = await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken });
    expect(resumed.json().data.receivedChunks).toEqual([0, 2]);
    expect(await t.storedFiles()).toEqual([`uploads/${session.id}/0`, `uploads/${session.id}/2`].sort());

    expectError(
      await call(t.app, 'POST', `/api/files/uploads/${session.id}/complete`, { token: t.demoAdminToken }),
      400,
      'files.chunks_missing',
      'chunks',
    );
    expect((await putChunk(t, t.demoAdminToken, session.id, 1, chunkOf(data, 1))).statusCode).toBe(200);
    const done = await call(t.app, 'POST', `/api/files/uploads/${session.id}/complete`, { token: t.demoAdminToken });
    expect(done.statusCode, done.body).toBe(201);
    const file = done.json().data;
    expect(file).toMatchObject({
      name: 'Quarterly report.pdf',
      mime: 'application/pdf',
      size: 2500,
      sha256: sha256(data),
    });

    const content = await call(t.app, 'GET', file.url, { token: t.demoAdminToken });
    expect(content.rawPayload.equals(data)).toBe(true);
    // the chunks are gone; one object remains
    const stored = await t.storedFiles();
    expect(stored.filter((k) => k.startsWith('uploads/'))).toEqual([]);
    expect(stored.filter((k) => k.startsWith('objects/'))).toHaveLength(1);
    // a repeated complete answers the same file
    const again = await call(t.app, 'POST', `/api/files/uploads/${session.id}/complete`, { token: t.demoAdminToken });
    expect(again.json().data.id).toBe(file.id);
  });

  it('aborts on a hash mismatch and leaves nothing behind', async () => {
    const before = {
      stored: await t.storedFiles(),
      objects: await rowCount(t, fileObjects),
      files: await rowCount(t, managedFiles),
      chunks: await rowCount(t, fileUploadChunks),
    };
    const data = pdf(3000);
    const session = (
      await init({ name: 'tampered.pdf', size: data.length, chunkSize: 1024, declaredSha256: sha256(pdf(3000)) })
    ).json().data;
    for (let i = 0; i < 3; i++)
      expect((await putChunk(t, t.demoAdminToken, session.id, i, chunkOf(data, i))).statusCode).toBe(200);
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.id}/`))).toHaveLength(3);

    const res = await call(t.app, 'POST', `/api/files/uploads/${session.id}/complete`, { token: t.demoAdminToken });
    expectError(res, 400, 'files.hash_mismatch', 'declaredSha256');
    expect(await t.storedFiles()).toEqual(before.stored);
    expect(await rowCount(t, fileObjects)).toBe(before.objects);
    expect(await rowCount(t, managedFiles)).toBe(before.files);
    expect(await rowCount(t, fileUploadChunks)).toBe(before.chunks);
    expectError(
      await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken }),
      404,
      'files.upload_not_found',
    );
  });

  it('checks every chunk size, the index range and the content of the first chunk', async () => {
    const data = pdf(2048);
    const session = (await init({ name: 'a.pdf', size: 2048, chunkSize: 1024 })).json().data;
    expectError(
      await putChunk(t, t.demoAdminToken, session.id, 0, data.subarray(0, 1000)),
      400,
      'files.chunk_size_mismatch',
      'body',
    );
    expectError(await putChunk(t, t.demoAdminToken, session.id, 1, data), 400, 'files.chunk_size_mismatch', 'body');
    expectError(
      await putChunk(t, t.demoAdminToken, session.id, 2, chunkOf(data, 0)),
      400,
      'request.validation_failed',
      'index',
    );
    expectError(
      await call(t.app, 'PUT', `/api/files/uploads/${session.id}/chunks/0`, {
        token: t.demoAdminToken,
        body: { not: 'bytes' },
      }),
      415,
      'request.unsupported_media_type',
    );
    expect(
      (await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken })).json().data
        .receivedChunks,
    ).toEqual([]);

    const exe = (await init({ name: 'tool.bin', size: 2048, chunkSize: 1024 })).json().data;
    const mz = Buffer.concat([Buffer.from('MZ'), randomBytes(1022)]);
    expectError(await putChunk(t, t.demoAdminToken, exe.id, 0, mz), 400, 'files.blocked_type');
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${exe.id}/`))).toEqual([]);
  });

  it('refuses bad input naming the field, and a blocked extension at init; nothing is written', async () => {
    const before = await rowCount(t, fileUploadSessions);
    expectError(await init({ name: 'a.pdf', size: 10, chunkSize: 10 }), 400, 'request.validation_failed', 'chunkSize');
    expectError(await init({ size: 10, chunkSize: 1024 }), 400, 'request.validation_failed', 'name');
    expectError(
      await init({ name: 'a.pdf', size: 10, chunkSize: 1024, declaredSha256: 'abc' }),
      400,
      'request.validation_failed',
      'declaredSha256',
    );
    expectError(
      await init({ name: 'a.pdf', size: 20_000_000, chunkSize: 1024 }),
      400,
      'request.validation_failed',
      'chunkSize',
    );
    expectError(
      await init({ name: 'a.pdf', size: 10, chunkSize: 1024, visibility: 'restricted' }),
      400,
      'request.validation_failed',
      'visibility',
    );
    expectError(await init({ name: 'run.bat', size: 10, chunkSize: 1024 }), 400, 'files.blocked_type');
    expect(await rowCount(t, fileUploadSessions)).toBe(before);
  });

  it("a session is its creator's: another user or tenant gets 404 and cannot add chunks", async () => {
    const data = pdf(1500);
    const session = (await init({ name: 'mine.pdf', size: 1500, chunkSize: 1024 })).json().data;
    for (const token of [other.adminToken, colleague.token]) {
      expectError(
        await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token }),
        404,
        'files.upload_not_found',
      );
      expectError(await putChunk(t, token, session.id, 0, chunkOf(data, 0)), 404, 'files.upload_not_found');
      expectError(
        await call(t.app, 'POST', `/api/files/uploads/${session.id}/complete`, { token }),
        404,
        'files.upload_not_found',
      );
      expectError(
        await call(t.app, 'DELETE', `/api/files/uploads/${session.id}`, { token }),
        404,
        'files.upload_not_found',
      );
    }
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.id}/`))).toEqual([]);
  });

  it('DELETE aborts a session and deletes its chunks', async () => {
    const data = pdf(1500);
    const session = (await init({ name: 'drop.pdf', size: 1500, chunkSize: 1024 })).json().data;
    await putChunk(t, t.demoAdminToken, session.id, 0, chunkOf(data, 0));
    await putChunk(t, t.demoAdminToken, session.id, 1, chunkOf(data, 1));
    expect(
      (await call(t.app, 'DELETE', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken })).statusCode,
    ).toBe(200);
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.id}/`))).toEqual([]);
    expectError(await putChunk(t, t.demoAdminToken, session.id, 0, chunkOf(data, 0)), 404, 'files.upload_not_found');
  });

  it('expired sessions are removed with their chunks by the cleanup task', async () => {
    const data = pdf(1500);
    const session = (await init({ name: 'stale.pdf', size: 1500, chunkSize: 1024 })).json().data;
    await putChunk(t, t.demoAdminToken, session.id, 0, chunkOf(data, 0));
    const expiresAt = Date.parse(
      (await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken })).json().data.expiresAt,
    );
    // not before its expiry (older sessions of this file may go)
    await t.app.files.expireUploadSessions(new Date(expiresAt - 1000));
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.id}/`))).toHaveLength(1);
    const { expired } = await t.app.files.expireUploadSessions(new Date(expiresAt + 1000));
    expect(expired).toBeGreaterThanOrEqual(1);
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.id}/`))).toEqual([]);
    expectError(
      await call(t.app, 'GET', `/api/files/uploads/${session.id}`, { token: t.demoAdminToken }),
      404,
      'files.upload_not_found',
    );
  });
});
