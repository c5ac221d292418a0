import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { driveNodes, driveShareAccessLogs, driveShareLinks, driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { shareLink } from './public-fixtures.ts';

let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let owner: DriveUser;
// a space of tenant a: parent/ shared/ {sub/ {deep.txt}, top.txt}, sibling/ {other.txt}
let spaceId: number;
let parent: NodeRow;
let shared: NodeRow;
let sub: NodeRow;
let deep: NodeRow;
let top: NodeRow;
let sibling: NodeRow;
let other: NodeRow;
let elsewhere: NodeRow;
let foreign: NodeRow;

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  const sp = await space(t, a.tenantId);
  spaceId = sp.id;
  parent = await folder(t, a.tenantId, sp.id, null, 'parent');
  shared = await folder(t, a.tenantId, sp.id, parent, 'shared');
  sub = await folder(t, a.tenantId, sp.id, shared, 'sub');
  deep = await file(t, a.tenantId, sp.id, sub, 'deep.txt', 'deep content');
  top = await file(t, a.tenantId, sp.id, shared, 'top.txt', '0123456789abcdefghij');
  sibling = await folder(t, a.tenantId, sp.id, parent, 'sibling');
  other = await file(t, a.tenantId, sp.id, sibling, 'other.txt');
  const sp2 = await space(t, a.tenantId);
  elsewhere = await file(t, a.tenantId, sp2.id, null, 'elsewhere.txt');
  const spB = await space(t, b.tenantId);
  foreign = await file(t, b.tenantId, spB.id, null, 'foreign.txt');
});
afterAll(async () => t?.close());

const base = (token: string) => `/api/drive/public/shares/${token}`;
const get = (url: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
  t.app.inject({ method: 'GET', url, headers, ...(remoteAddress ? { remoteAddress } : {}) });
const link = (node: NodeRow, opts: Parameters<typeof shareLink>[3] = {}) => shareLink(t, node, owner.userId, opts);
const logs = (linkId: number) =>
  t.database.db.select().from(driveShareAccessLogs).where(eq(driveShareAccessLogs.linkId, linkId));

describe('share link metadata', () => {
  it('shows the shared node, counts each visit and logs it', async () => {
    const l = await link(top, { watermark: true });
    const res = await get(base(l.token), { 'user-agent': 'ua-test' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      passwordRequired: false,
      hasSession: false,
      node: { id: top.id, name: 'top.txt', type: 'file', size: 20 },
      capabilities: ['preview', 'download'],
      expiresAt: null,
      watermark: true,
    });
    await get(base(l.token));
    expect((await rowById(t, driveShareLinks, l.id))?.accessCount).toBe(2);
    const rows = await logs(l.id);
    expect(rows.map((r) => r.event)).toEqual(['access', 'access']);
    expect(rows[0]).toMatchObject({ nodeId: top.id, tenantId: a.tenantId, userAgent: 'ua-test' });
  });

  it('answers 404 for an unknown token, 410 for revoked, expired and exhausted links', async () => {
    expectError(await get(base('nope')), 404, 'drive.share_not_found');
    const revoked = await link(top, { status: 'revoked' });
    expectError(await get(base(revoked.token)), 410, 'drive.share_revoked');
    const expired = await link(top, { expiresAt: new Date(Date.now() - 1000) });
    expectError(await get(base(expired.token)), 410, 'drive.share_expired');
    const once = await link(top, { maxAccessCount: 1 });
    expect((await get(base(once.token))).statusCode).toBe(200);
    expectError(await get(base(once.token)), 410, 'drive.share_exhausted');
    expect((await rowById(t, driveShareLinks, once.id))?.accessCount).toBe(1);
    // a collect link shows its metadata (collect-links.test.ts) but is never browsed nor downloaded from
    const collect = await link(shared, { kind: 'collect' });
    expect((await get(base(collect.token))).json().data).toMatchObject({ kind: 'collect' });
    expectError(await get(`${base(collect.token)}/nodes`), 404, 'drive.share_not_found');
  });

  it('a link whose node is in the recycle bin is 404', async () => {
    const gone = await file(t, a.tenantId, spaceId, shared, 'gone.txt');
    const l = await link(gone);
    await t.database.db.update(driveNodes).set({ deletedAt: new Date() }).where(eq(driveNodes.id, gone.id));
    expectError(await get(base(l.token)), 404, 'drive.node_not_found');
    expect(await logs(l.id)).toHaveLength(0);
  });

  it('external sharing turned off for the tenant or the space makes existing links unusable', async () => {
    const tenantB = await link(foreign);
    expect((await get(base(tenantB.token))).statusCode).toBe(200);
    const off = await call(t.app, 'PUT', '/api/settings/drive', {
      token: b.adminToken,
      body: { externalShareEnabled: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    expectError(await get(base(tenantB.token)), 403, 'drive.share_disabled');
    expectError(await get(`${base(tenantB.token)}/content`), 403, 'drive.share_disabled');
    // tenant a still shares
    const l = await link(elsewhere);
    expect((await get(base(l.token))).statusCode).toBe(200);
    await t.database.db
      .update(driveSpaces)
      .set({ externalShareEnabled: false })
      .where(eq(driveSpaces.id, elsewhere.spaceId));
    expectError(await get(base(l.token)), 403, 'drive.share_disabled');
    expectError(await get(`${base(l.token)}/content`), 403, 'drive.share_disabled');
    await t.database.db
      .update(driveSpaces)
      .set({ externalShareEnabled: true })
      .where(eq(driveSpaces.id, elsewhere.spaceId));
  });
});

describe('IP allow-lists', () => {
  it('admits exact addresses and CIDRs, v4, v6 and IPv4-mapped', async () => {
    const l = await link(top, { allowedIps: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32', 'garbage'] });
    const at = async (ip: string) => (await get(base(l.token), {}, ip)).statusCode;
    expect(await at('203.0.113.7')).toBe(200);
    expect(await at('198.51.100.200')).toBe(200);
    expect(await at('::ffff:198.51.100.9')).toBe(200);
    expect(await at('2001:db8:1::5')).toBe(200);
    expectError(await get(base(l.token), {}, '203.0.113.8'), 403, 'drive.share_ip_denied');
    expectError(await get(base(l.token), {}, '2001:db9::1'), 403, 'drive.share_ip_denied');
    expectError(await get(base(l.token), {}, '127.0.0.1'), 403, 'drive.share_ip_denied');
    const v6 = await link(top, { allowedIps: ['2001:db8::42'] });
    expect((await get(base(v6.token), {}, '2001:db8::42')).statusCode).toBe(200);
    expectError(await get(base(v6.token), {}, '2001:db8::43'), 403, 'drive.share_ip_denied');
  });

  it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const l = await link(top, { allowedIps: ['203.0.113.7'] });
    const res = await get(base(l.token), { 'x-forwarded-for': '203.0.113.7' }, '10.0.0.1');
    expectError(res, 403, 'drive.share_ip_denied');
    expect((await rowById(t, driveShareLinks, l.id))?.accessCount).toBe(0);
  });
});

describe('password links', () => {
  it('hides everything without a session; the password opens one that works until a revoke', async () => {
    const l = await link(shared, { password: 'Secret#1' });
    const locked = await get(base(l.token));
    expect(locked.statusCode).toBe(200);
    expect(locked.json().data).toEqual({ passwordRequired: true, hasSession: false });
    expectError(await get(`${base(l.token)}/nodes`), 401, 'drive.share_password_required');
    expectError(await get(`${base(l.token)}/content?nodeId=${top.id}`), 401, 'drive.share_password_required');
    expectError(
      await get(`${base(l.token)}/nodes`, { 'x-share-session': 'made-up' }),
      401,
      'drive.share_password_required',
    );

    const open = await call(t.app, 'POST', `${base(l.token)}/password`, { body: { password: 'Secret#1' } });
    expect(open.statusCode, open.body).toBe(200);
    const { sessionToken, expiresAt } = open.json().data;
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    const h = { 'x-share-session': sessionToken };
    const meta = await get(base(l.token), h);
    expect(meta.json().data).toMatchObject({ passwordRequired: true, hasSession: true, node: { id: shared.id } });
    // the session counted the access; metadata with it does not count again
    expect((await rowById(t, driveShareLinks, l.id))?.accessCount).toBe(1);
    expect((await get(`${base(l.token)}/nodes`, h)).statusCode).toBe(200);
    expect((await get(`${base(l.token)}/content?nodeId=${top.id}`, h)).body).toBe('0123456789abcdefghij');
    // a session of this link is worth nothing on another link
    const otherLink = await link(shared, { password: 'Secret#1' });
    expectError(await get(`${base(otherLink.token)}/nodes`, h), 401, 'drive.share_password_required');

    // a revoke (or password change) bumps session_version: the session ends
    await t.database.db
      .update(driveShareLinks)
      .set({ sessionVersion: l.sessionVersion + 1 })
      .where(eq(driveShareLinks.id, l.id));
    expectError(await get(`${base(l.token)}/nodes`, h), 401, 'drive.share_password_required');
    await t.database.db.update(driveShareLinks).set({ status: 'revoked' }).where(eq(driveShareLinks.id, l.id));
    expectError(await get(`${base(l.token)}/nodes`, h), 410, 'drive.share_revoked');
  });

  it('a wrong password is 401 and logged; past 5 attempts per link and address, 429 with Retry-After', async () => {
    const l = await link(top, { password: 'Secret#1' });
    const attempt = (password: string, remoteAddress = '192.0.2.10') =>
      t.app.inject({
        method: 'POST',
        url: `${base(l.token)}/password`,
        payload: { password },
        headers: { 'user-agent': 'guesser' },
        remoteAddress,
      });
    for (let i = 0; i < 5; i++) expectError(await attempt(`wrong${i}`), 401, 'drive.share_wrong_password');
    const wrong = (await logs(l.id)).filter((r) => r.event === 'wrong_password');
    expect(wrong).toHaveLength(5);
    expect(wrong[0]).toMatchObject({ ip: '192.0.2.10', userAgent: 'guesser', nodeId: top.id });
    // even the right password waits now
    const limited = await attempt('Secret#1');
    expectError(limited, 429, 'drive.share_too_many_attempts');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // another address has its own counter
    expect((await attempt('Secret#1', '192.0.2.11')).statusCode).toBe(200);
  });

  it('refuses a bad password body with 400 naming the field, writing nothing', async () => {
    const l = await link(top, { password: 'Secret#1' });
    const before = await rowCount(t, driveShareAccessLogs);
    expectError(
      await call(t.app, 'POST', `${base(l.token)}/password`, { body: {} }),
      400,
      'request.validation_failed',
      'password',
    );
    expectError(
      await call(t.app, 'POST', `${base(l.token)}/password`, { body: { password: 'x'.repeat(201) } }),
      400,
      'request.validation_failed',
      'password',
    );
    const plain = await link(top);
    expectError(
      await call(t.app, 'POST', `${base(plain.token)}/password`, { body: { password: 'x' } }),
      400,
      'request.validation_failed',
      'password',
    );
    expect(await rowCount(t, driveShareAccessLogs)).toBe(before);
    expect((await rowById(t, driveShareLinks, l.id))?.accessCount).toBe(0);
  });
});

describe('browsing a shared folder', () => {
  it('lists live children, folders first, and descends into sub-folders', async () => {
    const l = await link(shared);
    const root = await get(`${base(l.token)}/nodes`);
    expect(root.statusCode, root.body).toBe(200);
    expect(root.json().data).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(root.json().data.list.map((n: { name: string }) => n.name)).toEqual(['sub', 'top.txt']);
    const inner = await get(`${base(l.token)}/nodes?parentId=${sub.id}`);
    expect(inner.json().data.list).toEqual([expect.objectContaining({ id: deep.id, name: 'deep.txt', type: 'file' })]);
    const paged = await get(`${base(l.token)}/nodes?pageSize=1&page=2`);
    expect(paged.json().data.list.map((n: { id: number }) => n.id)).toEqual([top.id]);
  });

  it('cannot leave the shared subtree', async () => {
    const l = await link(shared);
    for (const id of [parent.id, sibling.id, elsewhere.id, foreign.id, 2_000_000]) {
      expectError(await get(`${base(l.token)}/nodes?parentId=${id}`), 404, 'drive.node_not_found');
    }
    expectError(await get(`${base(l.token)}/nodes?parentId=${top.id}`), 400, 'drive.not_a_folder', 'parentId');
    expectError(await get(`${base(l.token)}/nodes?parentId=abc`), 400, 'request.validation_failed', 'parentId');
    expectError(await get(`${base(l.token)}/nodes?pageSize=1000`), 400, 'request.validation_failed', 'pageSize');
  });
});

describe('downloading', () => {
  it('downloads the shared file and files under a shared folder, as a sandboxed attachment', async () => {
    const l = await link(top);
    const res = await get(`${base(l.token)}/content`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toBe('0123456789abcdefghij');
    expect(res.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-disposition']).toMatch(/^attachment/);
    const folderLink = await link(shared);
    expect((await get(`${base(folderLink.token)}/content?nodeId=${deep.id}`)).body).toBe('deep content');
    for (const id of [other.id, elsewhere.id, foreign.id]) {
      expectError(await get(`${base(folderLink.token)}/content?nodeId=${id}`), 404, 'drive.node_not_found');
    }
    expectError(await get(`${base(folderLink.token)}/content`), 400, 'drive.not_a_file');
    // a file link reaches only its file
    expectError(await get(`${base(l.token)}/content?nodeId=${deep.id}`), 404, 'drive.node_not_found');
    expect((await logs(folderLink.id)).filter((r) => r.event === 'download').map((r) => r.nodeId)).toEqual([deep.id]);
  });

  it('a preview-only link never gives the bytes', async () => {
    expect((await get(base((await link(top)).token))).json().data.remainingDownloads).toBeNull();
    const l = await link(top, { capabilities: ['preview'] });
    const res = await get(`${base(l.token)}/content`);
    expectError(res, 403, 'drive.share_preview_only');
    expect(res.body).not.toContain('0123456789');
    expect((await rowById(t, driveShareLinks, l.id))?.downloadCount).toBe(0);
  });

  it('counts a download once across the Range requests of one reading; ETag gives 304', async () => {
    const l = await link(top, { maxDownloadCount: 1 });
    // the page offers a download only while one is left
    expect((await get(base(l.token))).json().data.remainingDownloads).toBe(1);
    const first = await get(`${base(l.token)}/content`, { range: 'bytes=0-4' });
    expect(first.statusCode).toBe(206);
    expect(first.body).toBe('01234');
    const rest = await get(`${base(l.token)}/content`, { range: 'bytes=5-' });
    expect(rest.statusCode).toBe(206);
    expect(rest.body).toBe('56789abcdefghij');
    expect((await rowById(t, driveShareLinks, l.id))?.downloadCount).toBe(1);
    expect((await get(base(l.token))).json().data.remainingDownloads).toBe(0);
    expectError(await get(`${base(l.token)}/content`), 410, 'drive.share_exhausted');
    const bad = await get(`${base(l.token)}/content`, { range: 'bytes=500-600' });
    expect(bad.statusCode).toBe(416);
    const cached = await get(`${base(l.token)}/content`, {
      'if-none-match': String(first.headers.etag),
      range: 'bytes=3-',
    });
    expect(cached.statusCode).toBe(304);
  });

  it('20 parallel downloads against a limit of 5: exactly 5 succeed', async () => {
    const l = await link(top, { maxDownloadCount: 5 });
    const all = await Promise.all(Array.from({ length: 20 }, () => get(`${base(l.token)}/content`)));
    const codes = all.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 410)).toHaveLength(15);
    expect((await rowById(t, driveShareLinks, l.id))?.downloadCount).toBe(5);
    const downloads = await t.database.db
      .select()
      .from(driveShareAccessLogs)
      .where(and(eq(driveShareAccessLogs.linkId, l.id), eq(driveShareAccessLogs.event, 'download')));
    expect(downloads).toHaveLength(5);
  });

  it('rejects a bad nodeId with 400 naming the field', async () => {
    const l = await link(shared);
    expectError(await get(`${base(l.token)}/content?nodeId=0`), 400, 'request.validation_failed', 'nodeId');
    expectError(await get(`${base(l.token)}/content?nodeId=x`), 400, 'request.validation_failed', 'nodeId');
    expect((await rowById(t, driveShareLinks, l.id))?.downloadCount).toBe(0);
  });
});
