import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { driveShareAccessLogs, driveShareLinks } from '../../src/modules/drive/tables.ts';
import { versionOwner } from '../../src/modules/drive/versions/version-store.ts';
import { systemScope } from '../../src/platform/auth/principal.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { alphaPng, bombPng, getPreview, greyJpeg, photoJpeg, pixels } from './previews-fixtures.ts';
import { shareLink } from './public-fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let owner: DriveUser;
let spaceId: number;
let shared: NodeRow;
const originals = new Map<number, Buffer>();

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  spaceId = (await space(t, a.tenantId)).id;
  shared = await folder(t, a.tenantId, spaceId, null, 'pictures');
});
afterAll(async () => t?.close());

async function put(name: string, content: Buffer) {
  const node = await file(t, a.tenantId, spaceId, shared, name, content);
  originals.set(node.id, content);
  return node;
}
/** A preview-only link on the folder (the capability the preview needs, not the download one). */
const previewLink = (opts: Parameters<typeof shareLink>[3] = {}) =>
  shareLink(t, shared, owner.userId, { capabilities: ['preview'], ...opts });

describe('image previews', () => {
  it('re-encodes a photo: JPEG, orientation applied, bounded, EXIF and GPS gone, never the original bytes', async () => {
    // 3000×2000 stored with orientation 6 (rotate 90°): shown 2000×3000, bounded to 1365×2048
    const original = await photoJpeg(3000, 2000, 6);
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const node = await put('holiday.jpg', original);
    const l = await previewLink();
    const res = await getPreview(t, l.token, node.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toMatch(/^inline; filename="holiday\.jpg\.preview\.jpg"/);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const body = res.rawPayload;
    expect(body.equals(original)).toBe(false);
    const meta = await sharp(body).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 1365, height: 2048 });
    expect(meta.exif).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    for (const secret of ['PreviewCam', 'GPS-Secret-Model', 'home address', 'Exif'])
      expect(body.includes(Buffer.from(secret))).toBe(false);
  });

  it('keeps transparency as PNG; a small picture is not enlarged', async () => {
    const node = await put('logo.png', await alphaPng(300, 200));
    const l = await previewLink();
    const res = await getPreview(t, l.token, node.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const meta = await sharp(res.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 300, height: 200, hasAlpha: true });
    const { data } = await sharp(res.rawPayload).raw().toBuffer({ resolveWithObject: true });
    expect(data[3]).toBe(0); // top-left pixel still transparent
    expect(data[(299 + 0) * 4 + 3]).toBe(255);
  });

  it('serves the first frame of a GIF, a WebP, an AVIF and a TIFF as JPEG', async () => {
    const gif = await put(
      'anim.gif',
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#0a0' } })
        .gif()
        .toBuffer(),
    );
    const webp = await put(
      'pic.webp',
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#00a' } })
        .webp()
        .toBuffer(),
    );
    const avif = await put(
      'pic.avif',
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a00' } })
        .avif()
        .toBuffer(),
    );
    const tiff = await put(
      'scan.tiff',
      await sharp({ create: { width: 64, height: 48, channels: 3, background: '#aa0' } })
        .tiff()
        .toBuffer(),
    );
    const l = await previewLink();
    for (const node of [gif, webp, avif, tiff]) {
      const res = await getPreview(t, l.token, node.id);
      expect(res.statusCode, res.body).toBe(200);
      expect(await sharp(res.rawPayload).metadata()).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    }
  });

  it('burns the watermark in when the link asks for one: the pixels change, the plain link stays clean', async () => {
    const node = await put('grey.jpg', await greyJpeg(800, 600));
    const plain = await getPreview(t, (await previewLink()).token, node.id);
    const marked = await getPreview(t, (await previewLink({ watermark: true })).token, node.id);
    expect(plain.statusCode, plain.body).toBe(200);
    expect(marked.statusCode, marked.body).toBe(200);
    const p = await pixels(plain.rawPayload);
    const m = await pixels(marked.rawPayload);
    expect([m.info.width, m.info.height]).toEqual([800, 600]);
    // without a watermark the grey stays grey (JPEG noise only)
    const off = (buf: Buffer) => buf.filter((v) => Math.abs(v - 128) > 20).length / buf.length;
    expect(off(p.data)).toBe(0);
    // with one, a visible share of every region (the tiles cover all of it) moves far from the grey
    const third = (buf: Buffer, k: number) => buf.subarray((buf.length / 3) * k, (buf.length / 3) * (k + 1));
    for (const k of [0, 1, 2]) expect(off(third(m.data, k))).toBeGreaterThan(0.03);
    expect(plain.headers.etag).not.toBe(marked.headers.etag);
  });

  it('answers 304 to the ETag without counting or logging again', async () => {
    const node = await put('etag.jpg', await greyJpeg(40, 30));
    const l = await previewLink();
    const first = await getPreview(t, l.token, node.id);
    expect(first.statusCode).toBe(200);
    const again = await getPreview(t, l.token, node.id, { 'if-none-match': first.headers.etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    const logs = await t.database.db.select().from(driveShareAccessLogs).where(eq(driveShareAccessLogs.linkId, l.id));
    expect(logs.map((r) => [r.event, r.nodeId, r.detail])).toEqual([
      ['access', node.id, { preview: 'image', versionId: node.currentVersionId }],
    ]);
    // a preview is neither an access nor a download of the link
    expect(await rowById(t, driveShareLinks, l.id)).toMatchObject({ accessCount: 0, downloadCount: 0 });
  });
});

describe('images that cannot be previewed', () => {
  it('a header claiming 30000×30000 pixels is 422 drive.preview_too_large, never a 500', async () => {
    const node = await put('bomb.png', await bombPng(30000));
    const l = await previewLink();
    expectError(await getPreview(t, l.token, node.id), 422, 'drive.preview_too_large');
  });

  it('a truly large picture past the pixel limit is refused before decoding', async () => {
    // 9000×8000 = 72 MP of one colour: a few KB as PNG
    const big = await sharp({ create: { width: 9000, height: 8000, channels: 3, background: '#fff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    const node = await put('huge.png', big);
    const l = await previewLink();
    expectError(await getPreview(t, l.token, node.id), 422, 'drive.preview_too_large');
  });

  it('a corrupt .jpg and a truncated JPEG are 422 drive.preview_unreadable', async () => {
    const corrupt = await put('broken.jpg', Buffer.from('this is not a picture at all, only words'.repeat(20)));
    const whole = await photoJpeg(200, 100);
    const truncated = await put('cut.jpg', whole.subarray(0, Math.floor(whole.length / 2)));
    const l = await previewLink();
    expectError(await getPreview(t, l.token, corrupt.id), 422, 'drive.preview_unreadable');
    expectError(await getPreview(t, l.token, truncated.id), 422, 'drive.preview_unreadable');
  });

  it('an SVG named .png never reaches a decoder (422); a PDF named .png is a PDF (415: its type decides)', async () => {
    const svg = await put(
      'vector.png',
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      ),
    );
    const pdf = await put('doc.png', Buffer.from('%PDF-1.4\n%%EOF\n'));
    const l = await previewLink();
    expectError(await getPreview(t, l.token, svg.id), 422, 'drive.preview_unreadable');
    expectError(await getPreview(t, l.token, pdf.id), 415, 'drive.preview_unavailable');
  });

  it('an executable (PE, ELF) stored under a .png name is 422, its bytes never served', async () => {
    // uploads refuse executable headers, so the bytes are put under a stored file's key directly
    for (const [name, header] of [
      ['setup.png', Buffer.concat([Buffer.from('MZ\x90\x00\x03'), Buffer.alloc(200, 0x41)])],
      ['elf.png', Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01'), Buffer.alloc(200, 0x42)])],
    ] as const) {
      const node = await put(name, Buffer.alloc(205, 0x20));
      const scope = systemScope(a.tenantId);
      const stored = await t.app.files.files.referencedBy(scope, versionOwner(node.currentVersionId as number));
      const provider = await t.app.files.resolver.byConfigId(stored.storageConfigId);
      await provider.put(stored.storageKey, (await import('node:stream')).Readable.from([header]), {
        contentType: 'application/octet-stream',
      });
      const l = await previewLink();
      const res = await getPreview(t, l.token, node.id);
      expectError(res, 422, 'drive.preview_unreadable');
      expect(res.rawPayload.includes(header.subarray(0, 4))).toBe(false);
    }
  });
});
