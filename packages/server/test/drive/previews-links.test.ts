import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { renditionOwner } from '../../src/modules/drive/previews/index.ts';
import { driveNodeRenditions, driveShareAccessLogs } from '../../src/modules/drive/tables.ts';
import { systemScope } from '../../src/platform/auth/principal.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { getPreview, greyJpeg } from './previews-fixtures.ts';
import { shareLink } from './public-fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let owner: DriveUser;
let spaceId: number;
// tenant a: docs/ {notes.txt, page.html, data.gz, report.pdf, photo.jpg, inner/ {deep.txt}}, outside.txt
let docs: NodeRow;
let inner: NodeRow;
let notes: NodeRow;
let page: NodeRow;
let data: NodeRow;
let report: NodeRow;
let photo: NodeRow;
let deep: NodeRow;
let outside: NodeRow;
let foreign: NodeRow;

const NOTES = '\uFEFFline one\tx\r\nbell\u0007 esc\u001b[31m red\u0000 nul \u007f del \u0085 nel\nend ü 字\n';
const PAGE =
  '<!doctype html><html><body><script>alert(document.cookie)</script><img src=x onerror=alert(1)></body></html>';
const PDF = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  spaceId = (await space(t, a.tenantId)).id;
  docs = await folder(t, a.tenantId, spaceId, null, 'docs');
  inner = await folder(t, a.tenantId, spaceId, docs, 'inner');
  notes = await file(t, a.tenantId, spaceId, docs, 'notes.txt', NOTES);
  page = await file(t, a.tenantId, spaceId, docs, 'page.html', PAGE);
  data = await file(t, a.tenantId, spaceId, docs, 'data.gz', gzipSync('compressed words'));
  report = await file(t, a.tenantId, spaceId, docs, 'report.pdf', PDF);
  photo = await file(t, a.tenantId, spaceId, docs, 'photo.jpg', await greyJpeg(64, 48));
  deep = await file(t, a.tenantId, spaceId, inner, 'deep.txt', 'deep words');
  outside = await file(t, a.tenantId, spaceId, null, 'outside.txt', 'not shared');
  const spB = await space(t, b.tenantId);
  foreign = await file(t, b.tenantId, spB.id, null, 'foreign.txt', 'other tenant');
});
afterAll(async () => t?.close());

const previewOnly = (node: NodeRow = docs, opts: Parameters<typeof shareLink>[3] = {}) =>
  shareLink(t, node, owner.userId, { capabilities: ['preview'], ...opts });
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** A ready rendition of `node`'s current version whose file holds `content` (what part 3's pipeline will write). */
async function rendition(
  node: NodeRow,
  kind: 'thumbnail' | 'text',
  content: Buffer,
  versionId = node.currentVersionId,
) {
  const [row] = await t.database.db
    .insert(driveNodeRenditions)
    .values({ tenantId: a.tenantId, nodeId: node.id, kind, versionId: versionId as number, status: 'ready' })
    .returning();
  if (!row) throw new Error('rendition insert failed');
  const stored = await t.app.files.store(systemScope(a.tenantId), {
    body: Readable.from([content]),
    name: `${kind}-${node.id}`,
    declaredMime: kind === 'text' ? 'text/plain' : 'image/png',
    visibility: 'restricted',
    maxBytes: 1024 ** 3,
    policy: { mimeAllowList: null, blockedExtensions: [] },
    owner: renditionOwner(row.id),
  });
  await t.database.db.update(driveNodeRenditions).set({ fileId: stored.id }).where(eq(driveNodeRenditions.id, row.id));
  return row;
}

describe('text previews', () => {
  it('decodes as UTF-8, drops the BOM and control characters but tab and line breaks, as text/plain', async () => {
    const l = await previewOnly();
    const res = await getPreview(t, l.token, notes.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^inline; filename="notes\.txt\.preview\.txt"/);
    expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(res.headers['x-preview-truncated']).toBeUndefined();
    expect(res.body).toBe('line one\tx\r\nbell esc[31m red nul  del  nel\nend ü 字\n');
    expect(res.rawPayload.equals(Buffer.from(NOTES))).toBe(false);
  });

  it('serves HTML as inert text: text/plain, sandboxed, nosniff, a .txt name', async () => {
    const l = await previewOnly();
    const res = await getPreview(t, l.token, page.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toMatch(/filename="page\.html\.preview\.txt"/);
    expect(res.body).toBe(PAGE);
  });

  it('shows the first MiB of a long text and says it was truncated; a character cut in two is dropped', async () => {
    // 1 MiB - 1 bytes of "a", then "é" (2 bytes) across the limit, then more
    const long = Buffer.concat([Buffer.alloc(1024 * 1024 - 1, 'a'), Buffer.from('é and more after the limit')]);
    const big = await file(t, a.tenantId, spaceId, docs, 'big.log', long);
    const l = await previewOnly();
    const res = await getPreview(t, l.token, big.id);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-preview-truncated']).toBe('true');
    expect(res.rawPayload.length).toBe(1024 * 1024 - 1);
    expect(res.body.includes('\uFFFD')).toBe(false);
    expect(res.body.includes('more')).toBe(false);
  });
});

describe('other types and renditions', () => {
  it('answers 415 drive.preview_unavailable with the node metadata for a type without a preview', async () => {
    const l = await previewOnly();
    const res = await getPreview(t, l.token, data.id);
    expectError(res, 415, 'drive.preview_unavailable');
    expect(res.json().node).toEqual({
      id: data.id,
      name: 'data.gz',
      size: data.size,
      mime: 'application/gzip',
      updatedAt: data.updatedAt.toISOString(),
    });
    expectError(await getPreview(t, l.token, report.id), 415, 'drive.preview_unavailable');
  });

  it('serves a ready rendition of the current version instead, re-encoded (a stale or pending one is ignored)', async () => {
    const l = await previewOnly(docs, { watermark: true });
    const thumb = await sharp({ create: { width: 120, height: 160, channels: 3, background: '#336' } })
      .png()
      .toBuffer();
    // a rendition of another version never shows, nor one still pending
    const stale = await rendition(report, 'thumbnail', thumb, (report.currentVersionId as number) + 100000);
    expectError(await getPreview(t, l.token, report.id), 415, 'drive.preview_unavailable');
    await t.database.db
      .update(driveNodeRenditions)
      .set({ versionId: report.currentVersionId as number, status: 'pending' })
      .where(eq(driveNodeRenditions.id, stale.id));
    expectError(await getPreview(t, l.token, report.id), 415, 'drive.preview_unavailable');
    await t.database.db.delete(driveNodeRenditions).where(eq(driveNodeRenditions.id, stale.id));

    await rendition(report, 'thumbnail', thumb);
    const res = await getPreview(t, l.token, report.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.rawPayload.equals(thumb)).toBe(false);
    expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 120, height: 160 });

    // a body-text rendition makes a text preview, sanitized like any text
    await rendition(data, 'text', Buffer.from('extracted\u0001 text'));
    const text = await getPreview(t, l.token, data.id);
    expect(text.statusCode, text.body).toBe(200);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.body).toBe('extracted text');

    // the listing says what each file can show
    const list = await get(`/api/drive/public/shares/${l.token}/nodes?pageSize=50`);
    expect(list.statusCode, list.body).toBe(200);
    const kinds = Object.fromEntries(
      list.json().data.list.map((n: { name: string; preview: string }) => [n.name, n.preview]),
    );
    expect(kinds).toMatchObject({
      inner: 'none',
      'notes.txt': 'text',
      'page.html': 'text',
      'data.gz': 'text',
      'report.pdf': 'image',
      'photo.jpg': 'image',
    });
  });
});

describe('the link rules', () => {
  it('a preview-only link: the content route stays 403, every preview differs from the original bytes', async () => {
    const l = await previewOnly();
    expectError(
      await get(`/api/drive/public/shares/${l.token}/content?nodeId=${photo.id}`),
      403,
      'drive.share_preview_only',
    );
    const original = await t.app.files.files.referencedBy(systemScope(a.tenantId), {
      type: 'drive_version',
      id: photo.currentVersionId as number,
    });
    const bytes = Buffer.concat(await (await t.app.files.files.open(original)).toArray());
    const res = await getPreview(t, l.token, photo.id);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(false);
    // the metadata shows what can be previewed
    const meta = await get(`/api/drive/public/shares/${(await previewOnly(photo)).token}`);
    expect(meta.json().data.node).toMatchObject({ id: photo.id, preview: 'image' });
  });

  it('a link without the preview capability: 403 drive.share_preview_not_allowed, and preview none in views', async () => {
    const l = await shareLink(t, docs, owner.userId, { capabilities: ['download'] });
    expectError(await getPreview(t, l.token, notes.id), 403, 'drive.share_preview_not_allowed');
    const list = await get(`/api/drive/public/shares/${l.token}/nodes`);
    expect(list.json().data.list.every((n: { preview: string }) => n.preview === 'none')).toBe(true);
  });

  it('a password link needs its session', async () => {
    const l = await previewOnly(docs, { password: 'Secret#12' });
    expectError(await getPreview(t, l.token, notes.id), 401, 'drive.share_password_required');
    const open = await call(t.app, 'POST', `/api/drive/public/shares/${l.token}/password`, {
      body: { password: 'Secret#12' },
    });
    const session = open.json().data.sessionToken as string;
    const res = await getPreview(t, l.token, notes.id, { 'x-share-session': session });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('stays inside the shared folder: outside, other tenants, folders and bad ids are refused, nothing logged', async () => {
    const l = await previewOnly();
    expect((await getPreview(t, l.token, deep.id)).body).toBe('deep words');
    const before = await rowCount(t, driveShareAccessLogs);
    expectError(await getPreview(t, l.token, outside.id), 404, 'drive.node_not_found');
    expectError(await getPreview(t, l.token, foreign.id), 404, 'drive.node_not_found');
    expectError(await getPreview(t, l.token, inner.id), 400, 'drive.not_a_file');
    expectError(await getPreview(t, l.token), 400, 'drive.not_a_file');
    expectError(
      await get(`/api/drive/public/shares/${l.token}/preview?nodeId=x`),
      400,
      'request.validation_failed',
      'nodeId',
    );
    expectError(
      await get(`/api/drive/public/shares/${l.token}/preview?nodeId=0`),
      400,
      'request.validation_failed',
      'nodeId',
    );
    expect(await rowCount(t, driveShareAccessLogs)).toBe(before);
  });

  it('a token of no link (or of another tenant’s revoked one) is just unknown or refused, nothing leaked', async () => {
    expectError(await getPreview(t, 'no-such-token', notes.id), 404, 'drive.share_not_found');
    const spB = await space(t, b.tenantId);
    const foreignFolder = await folder(t, b.tenantId, spB.id, null, 'b-docs');
    const bOwner = await driveUser(t, { tenantId: b.tenantId, tenantCode: b.code });
    const bLink = await shareLink(t, foreignFolder, bOwner.userId, { capabilities: ['preview'] });
    // tenant b's link cannot reach tenant a's file
    const res = await getPreview(t, bLink.token, notes.id);
    expectError(res, 404, 'drive.node_not_found');
    expect(res.body.includes('notes')).toBe(false);
    const revoked = await previewOnly(docs, { status: 'revoked' });
    expectError(await getPreview(t, revoked.token, notes.id), 410, 'drive.share_revoked');
  });
});

describe('encode slots', () => {
  it('runs at most N at a time, queues M, refuses the rest with 503 drive.preview_busy', async () => {
    const { createEncodeSlots } = await import('../../src/modules/drive/previews/encode-slots.ts');
    const slots = createEncodeSlots(1, 1);
    let release: () => void = () => undefined;
    let running = 0;
    let peak = 0;
    const work = () =>
      slots.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => {
          release = r;
        });
        running--;
        return 'done';
      });
    const first = work();
    const second = work();
    await expect(work()).rejects.toMatchObject({ status: 503, key: 'drive.preview_busy' });
    release();
    await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await Promise.all([first, second])).toEqual(['done', 'done']);
    expect(peak).toBe(1);
  });
});

describe('kinds and text decoding', () => {
  it('the stored type decides; the extension only when the type is generic', async () => {
    const { previewKind } = await import('../../src/modules/drive/previews/index.ts');
    const kind = (name: string, mime: string | null) => previewKind({ type: 'file', name, mime });
    expect(kind('a.svg', 'image/svg+xml')).toBe('text');
    expect(kind('a.html', 'text/html')).toBe('text');
    expect(kind('a.JPG', 'text/plain')).toBe('image');
    expect(kind('a.png', 'application/pdf')).toBe('none');
    expect(kind('a.txt', 'image/png')).toBe('image');
    expect(kind('main.rs', 'application/octet-stream')).toBe('text');
    expect(kind('a.bin', 'application/octet-stream')).toBe('none');
    expect(kind('a.bmp', 'image/bmp')).toBe('none');
    expect(previewKind({ type: 'folder', name: 'x.txt', mime: null })).toBe('none');
  });

  it('decodes UTF-16 by its BOM and replaces invalid UTF-8', async () => {
    const { renderText } = await import('../../src/modules/drive/previews/text-preview.ts');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\u0001llo', 'utf16le')]);
    expect(renderText(le, false).toString('utf8')).toBe('héllo');
    expect(renderText(Buffer.from([0x61, 0xc3, 0x28, 0x62]), false).toString('utf8')).toBe('a\uFFFD(b');
  });
});
