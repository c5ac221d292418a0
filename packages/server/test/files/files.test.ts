import { createHash, randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileObjects, managedFiles } from '../../src/modules/files/tables.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { call, createFilesTestApp, type FilesTestApp, pngBytes, uploadFile } from './files-helpers.ts';

let t: FilesTestApp;
let other: TenantFixture;
let nobody: { token: string };
let reader: { token: string };

beforeAll(async () => {
  t = await createFilesTestApp();
  ({ other, nobody } = await twoTenants(t));
  reader = await createUserWithPermissions(t, ['system:file:list']);
});
afterAll(async () => t?.close());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function nothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = [await rowCount(t, managedFiles), await rowCount(t, fileObjects), await t.storedFiles()];
  const out = await fn();
  expect([await rowCount(t, managedFiles), await rowCount(t, fileObjects), await t.storedFiles()]).toEqual(before);
  return out;
}

describe('single upload', () => {
  it('stores the file with the sniffed type, not the declared one, and lists it', async () => {
    const data = pngBytes();
    const res = await uploadFile(t, t.demoAdminToken, { name: 'scan.pdf', data, contentType: 'application/pdf' });
    expect(res.statusCode, res.body).toBe(201);
    const file = res.json().data;
    expect(file).toMatchObject({
      name: 'scan.pdf',
      mime: 'image/png',
      declaredMime: 'application/pdf',
      size: data.length,
      sha256: sha256(data),
      visibility: 'private',
      // absolute: without PUBLIC_BASE_URL, the development address http://HOST:PORT
      url: `http://127.0.0.1:3000/api/files/${file.id}/content`,
    });
    const meta = await call(t.app, 'GET', `/api/files/${file.id}`, { token: reader.token });
    expect(meta.json().data).toMatchObject({ id: file.id, mime: 'image/png' });
    const list = await call(t.app, 'GET', '/api/files?keyword=scan', { token: reader.token });
    expect(list.json().data.list.map((f: { id: number }) => f.id)).toContain(file.id);

    const content = await call(t.app, 'GET', file.url, { token: reader.token });
    expect(content.statusCode).toBe(200);
    expect(content.headers['content-type']).toBe('image/png');
    expect(content.headers['x-content-type-options']).toBe('nosniff');
    expect(content.rawPayload.equals(data)).toBe(true);
  });

  it('refuses an executable (by header, whatever its name) and a blocked extension; nothing is stored', async () => {
    const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), randomBytes(200)]);
    await nothingWritten(async () => {
      const res = await uploadFile(t, t.demoAdminToken, { name: 'notes.txt', data: elf, contentType: 'text/plain' });
      expectError(res, 400, 'files.blocked_type', 'file');
      const exe = await uploadFile(t, t.demoAdminToken, { name: 'Setup.EXE', data: Buffer.from('hello') });
      expectError(exe, 400, 'files.blocked_type', 'file');
    });
  });

  it('refuses a type outside the allow-list, and bad input naming the field; nothing is stored', async () => {
    await nothingWritten(async () => {
      const html = await uploadFile(t, t.demoAdminToken, {
        name: 'page.html',
        data: Buffer.from('<html><script>alert(1)</script></html>'),
        contentType: 'text/html',
      });
      expectError(html, 400, 'files.type_not_allowed', 'file');
      const vis = await uploadFile(t, t.demoAdminToken, {
        name: 'a.png',
        data: pngBytes(),
        visibility: 'restricted',
      });
      expectError(vis, 400, 'request.validation_failed', 'visibility');
      const json = await call(t.app, 'POST', '/api/files', { token: t.demoAdminToken, body: { name: 'x' } });
      expect(json.statusCode).toBe(415);
    });
  });

  it('refuses text no column can hold in the form: a NUL in the file name or in a field, naming it; nothing is stored', async () => {
    await nothingWritten(async () => {
      // the name was once stored without its NUL (input fuzz); the convention refuses it
      const name = await uploadFile(t, t.demoAdminToken, { name: 'a\u0000b.png', data: pngBytes() });
      expectError(name, 400, 'request.validation_failed', 'file');
      const field = await uploadFile(t, t.demoAdminToken, { name: 'a.png', data: pngBytes(), visibility: 'pub\u0000' });
      expectError(field, 400, 'request.validation_failed', 'visibility');
    });
  });

  it('sends files above the chunk threshold to chunked upload, and above the maximum answers 413', async () => {
    await call(t.app, 'PUT', '/api/settings/files', {
      token: t.demoAdminToken,
      body: { chunkThresholdMb: 1, maxSizeMb: 2 },
    });
    try {
      await nothingWritten(async () => {
        const big = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1024 * 1024 + 10)]);
        expectError(
          await uploadFile(t, t.demoAdminToken, { name: 'big.pdf', data: big }),
          400,
          'files.use_chunked_upload',
        );
        const huge = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3 * 1024 * 1024)]);
        expectError(await uploadFile(t, t.demoAdminToken, { name: 'huge.pdf', data: huge }), 413, 'files.too_large');
        const init = await call(t.app, 'POST', '/api/files/uploads', {
          token: t.demoAdminToken,
          body: { name: 'huge.png', size: 3 * 1024 * 1024, chunkSize: 1024 * 1024 },
        });
        expectError(init, 413, 'files.too_large');
      });
    } finally {
      await call(t.app, 'PUT', '/api/settings/files', {
        token: t.demoAdminToken,
        body: { chunkThresholdMb: 5, maxSizeMb: 1024 },
      });
    }
  });

  it('stores the same bytes once: two uploads share one object with two references', async () => {
    const data = pngBytes();
    const a = (await uploadFile(t, t.demoAdminToken, { name: 'one.png', data })).json().data;
    const b = (await uploadFile(t, t.demoAdminToken, { name: 'two.png', data })).json().data;
    expect(a.id).not.toBe(b.id);
    const fa = await rowById(t, managedFiles, a.id);
    const fb = await rowById(t, managedFiles, b.id);
    expect(fa?.objectId).toBe(fb?.objectId);
    const object = await rowById(t, fileObjects, fa?.objectId as number);
    expect(object).toMatchObject({ refCount: 2, gcState: 'live', sha256: sha256(data) });
    const sameHash = await t.database.db
      .select()
      .from(fileObjects)
      .where(eq(fileObjects.sha256, sha256(data)));
    expect(sameHash).toHaveLength(1);
    // exactly one stored copy: the second upload's temporary object was removed
    const stored = await t.storedFiles();
    expect(stored.filter((k) => k === object?.storageKey)).toHaveLength(1);

    expect((await call(t.app, 'DELETE', `/api/files/${a.id}`, { token: t.demoAdminToken })).statusCode).toBe(200);
    expect(await rowById(t, fileObjects, object?.id as number)).toMatchObject({ refCount: 1, gcState: 'live' });
    expect((await call(t.app, 'GET', `/api/files/${a.id}`, { token: reader.token })).statusCode).toBe(404);
    expect((await call(t.app, 'GET', b.url, { token: reader.token })).rawPayload.equals(data)).toBe(true);
  });

  it('missing permission is 403 (upload, list, delete)', async () => {
    await nothingWritten(async () => {
      expectError(
        await uploadFile(t, nobody.token, { name: 'a.png', data: pngBytes() }),
        403,
        'auth.permission_denied',
      );
      expectError(await call(t.app, 'GET', '/api/files', { token: nobody.token }), 403, 'auth.permission_denied');
      expectError(
        await call(t.app, 'POST', '/api/files/uploads', {
          token: nobody.token,
          body: { name: 'a.bin', size: 10, chunkSize: 1024 },
        }),
        403,
        'auth.permission_denied',
      );
    });
    const file = (await uploadFile(t, t.demoAdminToken, { name: 'keep.png', data: pngBytes() })).json().data;
    expectError(
      await call(t.app, 'DELETE', `/api/files/${file.id}`, { token: reader.token }),
      403,
      'auth.permission_denied',
    );
    expect((await call(t.app, 'GET', `/api/files/${file.id}`, { token: reader.token })).statusCode).toBe(200);
  });

  it("another tenant cannot see, read or delete a tenant's private file (404), nor anonymous callers", async () => {
    const data = pngBytes();
    const file = (await uploadFile(t, t.demoAdminToken, { name: 'secret.png', data })).json().data;
    expectError(
      await call(t.app, 'GET', `/api/files/${file.id}`, { token: other.adminToken }),
      404,
      'files.file_not_found',
    );
    expectError(await call(t.app, 'GET', file.url, { token: other.adminToken }), 404, 'files.file_not_found');
    expectError(await call(t.app, 'GET', file.url), 404, 'files.file_not_found');
    expectError(
      await call(t.app, 'DELETE', `/api/files/${file.id}`, { token: other.adminToken }),
      404,
      'files.file_not_found',
    );
    const list = await call(t.app, 'GET', '/api/files?pageSize=200', { token: other.adminToken });
    expect(list.json().data.list.map((f: { id: number }) => f.id)).not.toContain(file.id);
    const object = await rowById(t, fileObjects, (await rowById(t, managedFiles, file.id))?.objectId as number);
    expect(object).toMatchObject({ refCount: 1, gcState: 'live' });
    expect((await call(t.app, 'GET', file.url, { token: t.demoAdminToken })).rawPayload.equals(data)).toBe(true);
  });

  it('a public file is readable without a token and by other tenants', async () => {
    const data = pngBytes();
    const file = (await uploadFile(t, t.demoAdminToken, { name: 'logo.png', data, visibility: 'public' })).json().data;
    expect(file.visibility).toBe('public');
    const anon = await call(t.app, 'GET', `${file.url}?inline=true`);
    expect(anon.statusCode).toBe(200);
    expect(anon.headers['content-disposition']).toMatch(/^inline; /);
    expect(anon.rawPayload.equals(data)).toBe(true);
    expect((await call(t.app, 'GET', file.url, { token: other.adminToken })).statusCode).toBe(200);
    // metadata and lists stay per tenant
    expectError(
      await call(t.app, 'GET', `/api/files/${file.id}`, { token: other.adminToken }),
      404,
      'files.file_not_found',
    );
  });

  it('a restricted (drive) file answers 404 on the general routes', async () => {
    const data = pngBytes();
    const view = await t.app.files.store(
      { tenantId: t.demoTenantId, principal: null, requestId: 'test', ip: '127.0.0.1' },
      {
        body: (await import('node:stream')).Readable.from([data]),
        name: 'drive.png',
        declaredMime: 'image/png',
        visibility: 'restricted',
        maxBytes: 1024 * 1024,
        policy: { mimeAllowList: null, blockedExtensions: ['exe'] },
        owner: { type: 'drive_version', id: 1 },
      },
    );
    expect(view.visibility).toBe('restricted');
    for (const url of [`/api/files/${view.id}/content`, `/api/files/${view.id}`]) {
      expectError(await call(t.app, 'GET', url, { token: t.demoAdminToken }), 404, 'files.file_not_found');
    }
    expectError(
      await call(t.app, 'DELETE', `/api/files/${view.id}`, { token: t.demoAdminToken }),
      404,
      'files.file_not_found',
    );
    const list = await call(t.app, 'GET', '/api/files?pageSize=200', { token: t.demoAdminToken });
    expect(list.json().data.list.map((f: { id: number }) => f.id)).not.toContain(view.id);
  });
});

describe('download', () => {
  let file: { id: number; url: string; sha256: string };
  const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5000)]);

  beforeAll(async () => {
    const res = await uploadFile(t, t.demoAdminToken, { name: '報告 2026.pdf', data, contentType: 'application/pdf' });
    expect(res.statusCode, res.body).toBe(201);
    file = res.json().data;
  });

  const get = (headers: Record<string, string> = {}, query = '') =>
    call(t.app, 'GET', `${file.url}${query}`, { token: t.demoAdminToken, headers });

  it('answers the whole file with ETag, type and an RFC 5987 file name', async () => {
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(`"${file.sha256}"`);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(Number(res.headers['content-length'])).toBe(data.length);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="__ 2026.pdf"; filename*=UTF-8''${encodeURIComponent('報告 2026.pdf')}`,
    );
    expect(res.headers['content-disposition']).toContain("filename*=UTF-8''%E5%A0%B1%E5%91%8A%202026.pdf");
    expect(res.rawPayload.equals(data)).toBe(true);
    expect((await get({}, '?inline=true')).headers['content-disposition']).toMatch(/^inline; filename=/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await t.app.inject({
      method: 'HEAD',
      url: file.url,
      headers: { authorization: `Bearer ${t.demoAdminToken}` },
    });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['content-length'])).toBe(data.length);
    expect(res.headers.etag).toBe(`"${file.sha256}"`);
    expect(res.rawPayload.length).toBe(0);
  });

  it('answers 304 to a matching If-None-Match and 200 to another tag', async () => {
    const res = await get({ 'if-none-match': `"${file.sha256}"` });
    expect(res.statusCode).toBe(304);
    expect(res.rawPayload.length).toBe(0);
    expect(res.headers.etag).toBe(`"${file.sha256}"`);
    expect((await get({ 'if-none-match': `W/"other", "${file.sha256}"` })).statusCode).toBe(304);
    expect((await get({ 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('answers a single range with 206 and Content-Range; open and suffix ranges too', async () => {
    const res = await get({ range: 'bytes=100-199' });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 100-199/${data.length}`);
    expect(Number(res.headers['content-length'])).toBe(100);
    expect(res.rawPayload.equals(data.subarray(100, 200))).toBe(true);

    const open = await get({ range: `bytes=${data.length - 10}-` });
    expect(open.statusCode).toBe(206);
    expect(open.rawPayload.equals(data.subarray(data.length - 10))).toBe(true);
    const suffix = await get({ range: 'bytes=-5' });
    expect(suffix.headers['content-range']).toBe(`bytes ${data.length - 5}-${data.length - 1}/${data.length}`);
    expect(suffix.rawPayload.equals(data.subarray(data.length - 5))).toBe(true);
    const clipped = await get({ range: `bytes=10-${data.length + 100}` });
    expect(clipped.headers['content-range']).toBe(`bytes 10-${data.length - 1}/${data.length}`);
    // an If-Range of another version gets the whole file
    expect((await get({ range: 'bytes=0-9', 'if-range': '"old"' })).statusCode).toBe(200);
  });

  it('answers 416 with Content-Range */size to a range outside the file', async () => {
    const res = await get({ range: `bytes=${data.length}-` });
    expectError(res, 416, 'files.range_not_satisfiable');
    expect(res.headers['content-range']).toBe(`bytes */${data.length}`);
  });

  it('answers 400 naming the field to a bad id', async () => {
    expectError(
      await call(t.app, 'GET', '/api/files/abc/content', { token: t.demoAdminToken }),
      400,
      'request.validation_failed',
      'id',
    );
  });
});
