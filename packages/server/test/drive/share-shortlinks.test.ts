import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import {
  newShortCode,
  SHORT_CODE_LENGTH,
  SHORT_LINK_MISSES,
} from '../../src/modules/drive/shares/short-links-service.ts';
import { driveShareLinks } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, createTwoInstances, type TestApp, usingRedis } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { activitiesOfNode } from './permissions-helpers.ts';
import { createLink, type LinkCast, linkCast, linkRow } from './shares-helpers.ts';

/**
 * Short links (issue 15): POST/DELETE /api/drive/share-links/{id}/short-link (creator or manager
 * of the node) and GET /api/drive/public/s/{code} (anonymous: 302 to the full URL).
 */
const BASE = 'https://atrium.example';
let t: TestApp;
let u: LinkCast['u'];
let doc: NodeRow;

const shortLink = (token: string, id: number, method: 'POST' | 'DELETE' = 'POST') =>
  call(t.app, method, `/api/drive/share-links/${id}/short-link`, { token });
/** each test its own address: the miss counter is per address */
let ipSeq = 1;
const freshIp = () => `198.51.100.${ipSeq++}`;
const resolve = (code: string, ip = freshIp(), app = t.app) =>
  app.inject({ method: 'GET', url: `/api/drive/public/s/${code}`, remoteAddress: ip });
const codeOf = (shortUrl: string) => shortUrl.slice(`${BASE}/api/drive/public/s/`.length);

async function newLink(token = u.creator.token, body: object = {}) {
  const res = await createLink(t, token, { nodeId: doc.id, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; token: string; url: string; shortUrl: string | null };
}

beforeAll(async () => {
  t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } });
  ({ u, doc } = await linkCast(t));
});
afterAll(async () => t?.close());

describe('short codes', () => {
  it('are 12 base62 characters, all different', () => {
    const codes = new Set(Array.from({ length: 2000 }, newShortCode));
    expect(codes.size).toBe(2000);
    for (const c of codes) expect(c).toMatch(new RegExp(`^[0-9A-Za-z]{${SHORT_CODE_LENGTH}}$`));
    // every character of the alphabet turns up (no bias to a subset)
    expect(new Set([...codes].join('')).size).toBe(62);
  });
});

describe('POST /api/drive/share-links/{id}/short-link', () => {
  it('makes the short link once: a second call (or a concurrent one) answers the same code', async () => {
    const l = await newLink();
    expect(l.shortUrl).toBeNull();
    const [r1, r2, r3] = await Promise.all([
      shortLink(u.creator.token, l.id),
      shortLink(u.creator.token, l.id),
      shortLink(u.owner.token, l.id),
    ]);
    for (const r of [r1, r2, r3]) expect(r?.statusCode, r?.body).toBe(200);
    const urls = new Set([r1, r2, r3].map((r) => r?.json().data.shortUrl));
    expect(urls.size).toBe(1);
    const shortUrl = r1?.json().data.shortUrl as string;
    expect(shortUrl).toMatch(new RegExp(`^${BASE}/api/drive/public/s/[0-9A-Za-z]{12}$`));
    expect(r1?.json().data).toMatchObject({ id: l.id, token: l.token, url: l.url });
    expect((await linkRow(t, l.id))?.shortCode).toBe(codeOf(shortUrl));
    // the link views show it from now on
    const again = await call(t.app, 'GET', `/api/drive/share-links/${l.id}`, { token: u.creator.token });
    expect(again.json().data.shortUrl).toBe(shortUrl);
    const acts = (await activitiesOfNode(t, doc.id)).filter((x) => x.action === 'share.short_link.create');
    expect(acts.filter((x) => (x.detail as { linkId: number }).linkId === l.id)).toHaveLength(1);
  });

  it('resolves to a 302 to the full URL (JSON on request), not cacheable', async () => {
    const l = await newLink();
    const shortUrl = (await shortLink(u.creator.token, l.id)).json().data.shortUrl as string;
    const res = await resolve(codeOf(shortUrl));
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(l.url);
    expect(res.headers.location).toBe(`${BASE}/s/${l.token}`);
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // a client asking for JSON gets the URL in the envelope
    const json = await t.app.inject({
      method: 'GET',
      url: `/api/drive/public/s/${codeOf(shortUrl)}`,
      headers: { accept: 'application/json' },
      remoteAddress: freshIp(),
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().data).toEqual({ url: l.url });
    expect(json.headers['cache-control']).toContain('no-store');
    // the JSON API of the link (what the page calls) works as before
    const meta = await t.app.inject({ method: 'GET', url: `/api/drive/public/shares/${l.token}` });
    expect(meta.statusCode, meta.body).toBe(200);
  });

  it('a viewer of the node, another editor, another tenant and a missing id get 404; nothing written', async () => {
    const l = await newLink();
    expectError(await shortLink(u.viewer.token, l.id), 404, 'drive.share_link_not_found');
    expectError(await shortLink(u.editor.token, l.id), 404, 'drive.share_link_not_found');
    expectError(await shortLink(u.stranger.token, l.id), 404, 'drive.share_link_not_found');
    expectError(await shortLink(u.creator.token, 999_999), 404, 'drive.share_link_not_found');
    expect((await linkRow(t, l.id))?.shortCode).toBeNull();
    expectError(await shortLink(u.creator.token, 0), 400, 'request.validation_failed', 'id');
    expect((await call(t.app, 'POST', `/api/drive/share-links/${l.id}/short-link`)).statusCode).toBe(401);
  });

  it('a revoked link gets none (409) and its existing short link answers 410', async () => {
    const l = await newLink();
    const shortUrl = (await shortLink(u.creator.token, l.id)).json().data.shortUrl as string;
    const rv = await call(t.app, 'POST', `/api/drive/share-links/${l.id}/revoke`, { token: u.creator.token });
    expect(rv.statusCode, rv.body).toBe(200);
    expectError(await resolve(codeOf(shortUrl)), 410, 'drive.share_revoked');
    const fresh = await newLink();
    await call(t.app, 'POST', `/api/drive/share-links/${fresh.id}/revoke`, { token: u.creator.token });
    expectError(await shortLink(u.creator.token, fresh.id), 409, 'drive.share_link_revoked');
    expect((await linkRow(t, fresh.id))?.shortCode).toBeNull();
  });

  it('an expired link answers 410 drive.share_expired', async () => {
    const l = await newLink();
    const shortUrl = (await shortLink(u.creator.token, l.id)).json().data.shortUrl as string;
    await t.database.db
      .update(driveShareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(driveShareLinks.id, l.id));
    expectError(await resolve(codeOf(shortUrl)), 410, 'drive.share_expired');
  });
});

describe('DELETE /api/drive/share-links/{id}/short-link', () => {
  it('stops the short URL; a new POST makes another code', async () => {
    const l = await newLink();
    const first = codeOf((await shortLink(u.creator.token, l.id)).json().data.shortUrl);
    const del = await shortLink(u.owner.token, l.id, 'DELETE');
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json().data.shortUrl).toBeNull();
    expectError(await resolve(first), 404, 'drive.share_not_found');
    // idempotent
    expect((await shortLink(u.creator.token, l.id, 'DELETE')).statusCode).toBe(200);
    const second = codeOf((await shortLink(u.creator.token, l.id)).json().data.shortUrl);
    expect(second).not.toBe(first);
    expect((await resolve(second)).statusCode).toBe(302);
  });

  it('only the creator or a manager: others get 404 and the code stays', async () => {
    const l = await newLink();
    const code = codeOf((await shortLink(u.creator.token, l.id)).json().data.shortUrl);
    expectError(await shortLink(u.viewer.token, l.id, 'DELETE'), 404, 'drive.share_link_not_found');
    expectError(await shortLink(u.stranger.token, l.id, 'DELETE'), 404, 'drive.share_link_not_found');
    expect((await linkRow(t, l.id))?.shortCode).toBe(code);
  });
});

describe('GET /api/drive/public/s/{code}', () => {
  it('answers 404 for unknown and malformed codes; a collection link’s code leads to its page too', async () => {
    const ip = freshIp();
    expectError(await resolve('AAAAAAAAAAAA', ip), 404, 'drive.share_not_found');
    expectError(await resolve('short', ip), 404, 'drive.share_not_found');
    expectError(await resolve('!!!!!!!!!!!!', ip), 404, 'drive.share_not_found');
    const collect = await newLink();
    await t.database.db
      .update(driveShareLinks)
      .set({ kind: 'collect', shortCode: 'Collect00001' })
      .where(eq(driveShareLinks.id, collect.id));
    const res = await resolve('Collect00001', ip);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(collect.url);
  });

  it(`refuses an address after ${SHORT_LINK_MISSES} misses (429 + Retry-After), even for a valid code; others go on`, async () => {
    const l = await newLink();
    const code = codeOf((await shortLink(u.creator.token, l.id)).json().data.shortUrl);
    const ip = freshIp();
    // hits do not count
    for (let i = 0; i < 3; i++) expect((await resolve(code, ip)).statusCode).toBe(302);
    for (let i = 0; i < SHORT_LINK_MISSES; i++)
      expectError(await resolve(newShortCode(), ip), 404, 'drive.share_not_found');
    const blocked = await resolve(newShortCode(), ip);
    expectError(blocked, 429, 'drive.short_link_too_many_misses');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await resolve(code, ip), 429, 'drive.short_link_too_many_misses');
    expect((await resolve(code, freshIp())).statusCode).toBe(302);
  });

  it.runIf(usingRedis)('counts misses across instances (shared cache)', async () => {
    const two = await createTwoInstances({ env: { PUBLIC_BASE_URL: BASE } });
    try {
      const ip = '203.0.113.77';
      for (let i = 0; i < SHORT_LINK_MISSES; i++) {
        const app = i % 2 === 0 ? two.a.app : two.b.app;
        expect((await resolve(newShortCode(), ip, app)).statusCode).toBe(404);
      }
      expectError(await resolve(newShortCode(), ip, two.a.app), 429, 'drive.short_link_too_many_misses');
      expectError(await resolve(newShortCode(), ip, two.b.app), 429, 'drive.short_link_too_many_misses');
    } finally {
      await two.close();
    }
  });
});
