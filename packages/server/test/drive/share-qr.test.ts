import jsqr from 'jsqr';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createLink, type LinkCast, linkCast } from './shares-helpers.ts';

/** GET /api/drive/share-links/{id}/qr (issue 15): the link's URL as a QR code, for its creator or a manager. */
const BASE = 'https://atrium.example';
let t: TestApp;
let u: LinkCast['u'];
let doc: NodeRow;

const qr = (token: string | undefined, id: number, query = '') =>
  call(t.app, 'GET', `/api/drive/share-links/${id}/qr${query}`, token ? { token } : {});

// jsqr is CommonJS typed as an ES module: its function is the module itself under Node
const jsQR = jsqr as unknown as typeof jsqr.default;

/** What a QR code image says: rendered to RGBA by sharp (SVG or PNG), read by jsQR. */
async function decode(image: Buffer): Promise<string | null> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data ?? null;
}

async function newLink() {
  const res = await createLink(t, u.creator.token, { nodeId: doc.id });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; token: string; url: string };
}

beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } });
  ({ u, doc } = await linkCast(t));
});
afterAll(async () => t?.close());

describe('GET /api/drive/share-links/{id}/qr', () => {
  it('answers an SVG by default that reads as the full URL, never cached', async () => {
    const l = await newLink();
    const res = await qr(u.creator.token, l.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toMatch(/^<svg /);
    expect(res.body).not.toMatch(/<script/i);
    expect(await decode(res.rawPayload)).toBe(l.url);
  });

  it('answers a PNG of the asked size that reads as the URL; another link gives another image', async () => {
    const l = await newLink();
    const res = await qr(u.owner.token, l.id, '?format=png&size=300');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const meta = await sharp(res.rawPayload).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 300, height: 300 });
    expect(await decode(res.rawPayload)).toBe(`${BASE}/s/${l.token}`);
    const l2 = await newLink();
    const res2 = await qr(u.owner.token, l2.id, '?format=png&size=300');
    expect(res2.rawPayload.equals(res.rawPayload)).toBe(false);
    expect(await decode(res2.rawPayload)).toBe(l2.url);
    // default size
    expect((await sharp((await qr(u.creator.token, l.id, '?format=png')).rawPayload).metadata()).width).toBe(256);
  });

  it('target=short encodes the short URL, 409 when the link has none', async () => {
    const l = await newLink();
    expectError(await qr(u.creator.token, l.id, '?target=short'), 409, 'drive.short_link_missing', 'target');
    const made = await call(t.app, 'POST', `/api/drive/share-links/${l.id}/short-link`, { token: u.creator.token });
    const shortUrl = made.json().data.shortUrl as string;
    const res = await qr(u.creator.token, l.id, '?target=short&format=png');
    expect(res.statusCode, res.body).toBe(200);
    expect(await decode(res.rawPayload)).toBe(shortUrl);
  });

  it('refuses bad input naming the field, and a size out of bounds', async () => {
    const l = await newLink();
    expectError(await qr(u.creator.token, l.id, '?format=gif'), 400, 'request.validation_failed', 'format');
    expectError(await qr(u.creator.token, l.id, '?target=long'), 400, 'request.validation_failed', 'target');
    expectError(await qr(u.creator.token, l.id, '?format=png&size=5000'), 400, 'request.validation_failed', 'size');
    expectError(await qr(u.creator.token, l.id, '?format=png&size=10'), 400, 'request.validation_failed', 'size');
  });

  it('only the creator or a manager: others 404, no image; signed out 401', async () => {
    const l = await newLink();
    for (const who of [u.viewer, u.editor, u.stranger]) {
      const res = await qr(who.token, l.id);
      expectError(res, 404, 'drive.share_link_not_found');
      expect(res.body).not.toContain(l.token);
    }
    expectError(await qr(u.creator.token, 999_999), 404, 'drive.share_link_not_found');
    expect((await qr(undefined, l.id)).statusCode).toBe(401);
  });

  it('a revoked link has no QR code (409)', async () => {
    const l = await newLink();
    await call(t.app, 'POST', `/api/drive/share-links/${l.id}/revoke`, { token: u.creator.token });
    expectError(await qr(u.creator.token, l.id), 409, 'drive.share_link_revoked');
  });
});
