import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveRecentAccess } from '../../src/modules/drive/tables.ts';
import { pngBytes } from '../files/files-helpers.ts';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import {
  content,
  createDriveTestApp,
  type DriveTestApp,
  member,
  sha256,
  text,
  upload,
  versionsOf,
} from './uploads-helpers.ts';

/**
 * GET /api/drive/nodes/{id}/content (spec §4.3, §7.2): through the ACL (preview for viewers,
 * download=true for downloaders), Range and ETag, and never active content from the API origin.
 */
let t: DriveTestApp;
let owner: DriveUser;
let viewer: DriveUser;
let downloader: DriveUser;
let other: TenantFixture;
let spaceId: number;
const demo = () => t.demoTenantId;
const SANDBOX = "sandbox; default-src 'none'";

beforeAll(async () => {
  t = await createDriveTestApp();
  owner = await driveUser(t);
  viewer = await driveUser(t);
  downloader = await driveUser(t);
  other = await createTenant(t);
  const sp = await space(t, demo(), { ownerUserId: owner.userId });
  spaceId = sp.id;
  await member(t, demo(), sp.id, viewer.userId, 'viewer');
  await member(t, demo(), sp.id, downloader.userId, 'downloader');
});
afterAll(async () => t?.close());

async function put(name: string, data: Buffer, contentType = 'application/octet-stream') {
  const res = await upload(t, owner.token, { spaceId, conflict: 'overwrite' }, { name, data, contentType });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; sha256: string };
}

describe('content through the ACL', () => {
  it('a viewer previews; download=true needs the downloader role (viewer: 403 drive.role_too_low)', async () => {
    const data = text(1000);
    const node = await put('report.txt', data, 'text/plain');
    const preview = await content(t, viewer.token, node.id);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.rawPayload.equals(data)).toBe(true);
    expect(preview.headers['content-type']).toMatch(/^text\/plain/);
    expect(preview.headers['content-security-policy']).toBe(SANDBOX);
    expect(preview.headers['x-content-type-options']).toBe('nosniff');

    expectError(await content(t, viewer.token, node.id, { download: true }), 403, 'drive.role_too_low');
    const dl = await content(t, downloader.token, node.id, { download: true });
    expect(dl.statusCode).toBe(200);
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="report.txt"; filename*=UTF-8''report.txt`);
    expect(dl.rawPayload.equals(data)).toBe(true);
  });

  it('serves Range (206, 416) and ETag (304), with the current or a chosen version', async () => {
    const v1 = text(2000);
    const node = await put('ranges.txt', v1, 'text/plain');
    const part = await content(t, downloader.token, node.id, { download: true }, { range: 'bytes=100-199' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/2000');
    expect(part.rawPayload.equals(v1.subarray(100, 200))).toBe(true);
    expect(part.headers['content-security-policy']).toBe(SANDBOX);

    const past = await content(t, downloader.token, node.id, {}, { range: 'bytes=5000-' });
    expectError(past, 416, 'files.range_not_satisfiable');
    expect(past.headers['content-range']).toBe('bytes */2000');

    const etag = `"${sha256(v1)}"`;
    const full = await content(t, downloader.token, node.id);
    expect(full.headers.etag).toBe(etag);
    const same = await content(t, downloader.token, node.id, {}, { 'if-none-match': etag });
    expect(same.statusCode).toBe(304);
    expect(same.rawPayload.length).toBe(0);

    const v2 = text(50);
    await put('ranges.txt', v2, 'text/plain');
    const changed = await content(t, downloader.token, node.id, {}, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.rawPayload.equals(v2)).toBe(true);
    const [first] = await versionsOf(t, node.id);
    const old = await content(t, downloader.token, node.id, { versionId: first?.id as number });
    expect(old.rawPayload.equals(v1)).toBe(true);

    const another = await put('another.txt', text(10), 'text/plain');
    const [foreign] = await versionsOf(t, another.id);
    expectError(
      await content(t, downloader.token, node.id, { versionId: foreign?.id as number }),
      404,
      'drive.version_not_found',
    );
  });

  it('never renders active content: HTML and SVG go as attachments under a sandbox CSP; PNG shows in place', async () => {
    const html = await put(
      'page.html',
      Buffer.from('<html><script>alert(document.cookie)</script></html>'),
      'text/html',
    );
    const svg = await put(
      'logo.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'image/svg+xml',
    );
    for (const node of [html, svg]) {
      const res = await content(t, viewer.token, node.id);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toMatch(/^attachment;/);
      expect(res.headers['content-security-policy']).toBe(SANDBOX);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const png = await put('pic.png', pngBytes(), 'image/png');
    const shown = await content(t, viewer.token, png.id);
    expect(shown.headers['content-type']).toBe('image/png');
    expect(shown.headers['content-disposition']).toMatch(/^inline;/);
    const saved = await content(t, downloader.token, png.id, { download: true });
    expect(saved.headers['content-disposition']).toMatch(/^attachment;/);
  });

  it('records the access in the recent list (not for a Range continuing a reading)', async () => {
    const node = await put('recent.txt', text(500), 'text/plain');
    const recent = () =>
      t.database.db
        .select()
        .from(driveRecentAccess)
        .where(and(eq(driveRecentAccess.userId, viewer.userId), eq(driveRecentAccess.nodeId, node.id)));
    await content(t, viewer.token, node.id, {}, { range: 'bytes=100-' });
    expect(await recent()).toEqual([]);
    await content(t, viewer.token, node.id);
    expect(await recent()).toHaveLength(1);
  });

  it('GET /api/files/{id}/content answers 404 for a drive file (§4.3 rule 4)', async () => {
    const node = await put('drive-only.txt', text(100), 'text/plain');
    const [v] = await versionsOf(t, node.id);
    for (const token of [t.demoAdminToken, owner.token, undefined]) {
      expectError(
        await call(t.app, 'GET', `/api/files/${v?.fileId}/content`, token ? { token } : {}),
        404,
        'files.file_not_found',
      );
    }
    expectError(
      await call(t.app, 'GET', `/api/files/${v?.fileId}`, { token: t.demoAdminToken }),
      404,
      'files.file_not_found',
    );
  });
});

describe('content refusals', () => {
  it('needs drive:node:view (403), a role (404), a file (400), and the caller’s tenant (404)', async () => {
    const node = await put('secret.txt', text(100), 'text/plain');
    const noMenu = await driveUser(t, { permissions: ['drive:space:view'] });
    await member(t, demo(), spaceId, noMenu.userId, 'manager');
    expectError(await content(t, noMenu.token, node.id), 403, 'auth.permission_denied');
    const stranger = await driveUser(t);
    expectError(await content(t, stranger.token, node.id), 404, 'drive.node_not_found');
    expectError(await content(t, other.adminToken, node.id), 404, 'drive.node_not_found');
    expectError(await content(t, other.adminToken, node.id, { download: true }), 404, 'drive.node_not_found');
    const dir = await folder(t, demo(), spaceId, null, 'Folder');
    expectError(await content(t, owner.token, dir.id), 400, 'drive.not_a_file');
    expectError(
      await content(t, owner.token, node.id, { versionId: 'x' as never }),
      400,
      'request.validation_failed',
      'versionId',
    );
    expectError(
      await content(t, owner.token, node.id, { download: 'maybe' as never }),
      400,
      'request.validation_failed',
      'download',
    );
    const f = await file(
      t,
      other.tenantId,
      (await space(t, other.tenantId, { ownerUserId: other.adminUserId })).id,
      null,
      'theirs.txt',
    );
    expectError(await content(t, owner.token, f.id), 404, 'drive.node_not_found');
  });
});
