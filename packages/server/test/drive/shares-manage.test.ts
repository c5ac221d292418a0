import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveShareLinks, driveSpaceMembers } from '../../src/modules/drive/tables.ts';
import { verifyPassword } from '../../src/platform/crypto/passwords.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant } from './permissions-helpers.ts';
import { createLink, inDays, linkRow, setDriveSettings } from './shares-helpers.ts';

/**
 * Managing share links (issue 15): GET …/share-links/mine, GET …/share-links?spaceId (space
 * managers), GET/PUT …/share-links/{id} and POST …/{id}/revoke — creator or manager of the node.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'editor' | 'editor2' | 'viewer' | 'readOnly', DriveUser> = {} as never;
let sp: SpaceRow;
let top: NodeRow;
let doc: NodeRow;
let otherLink: { id: number };

const user = (x: TenantFixture, permissions?: string[]) =>
  driveUser(t, { tenantId: x.tenantId, tenantCode: x.code, ...(permissions ? { permissions } : {}) });
const get = (token: string, url: string) => call(t.app, 'GET', url, { token });
const put = (token: string, id: number, body: object) =>
  call(t.app, 'PUT', `/api/drive/share-links/${id}`, { token, body });
const revoke = (token: string, id: number) => call(t.app, 'POST', `/api/drive/share-links/${id}/revoke`, { token });
async function newLink(token: string, body: object = {}) {
  const res = await createLink(t, token, { nodeId: doc.id, ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: number; token: string; url: string };
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.editor = await user(a);
  u.editor2 = await user(a);
  u.viewer = await user(a);
  u.readOnly = await user(a, ['drive:node:view']);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Sales' });
  top = await folder(t, a.tenantId, sp.id, null, 'Offers');
  doc = await file(t, a.tenantId, sp.id, top, 'offer.pdf');
  for (const x of [u.editor, u.editor2, u.readOnly])
    await grant(t, a.tenantId, top, { type: 'user', id: x.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  const otherOwner = await user(other);
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: otherOwner.userId });
  const odoc = await file(t, other.tenantId, osp.id, null, 'theirs.txt');
  const res = await createLink(t, otherOwner.token, { nodeId: odoc.id });
  expect(res.statusCode, res.body).toBe(201);
  otherLink = res.json().data;
});
afterAll(async () => t?.close());

describe('GET /api/drive/share-links/mine', () => {
  it("lists the caller's links newest first with counters and state, without tokens", async () => {
    const me = await user(a);
    await grant(t, a.tenantId, top, { type: 'user', id: me.userId }, 'editor');
    const first = await newLink(me.token, { title: 'first' });
    const second = await newLink(me.token, { title: 'second', maxAccessCount: 1 });
    await newLink(u.editor.token);
    await t.database.db.update(driveShareLinks).set({ accessCount: 1 }).where(eq(driveShareLinks.id, second.id));
    const res = await get(me.token, '/api/drive/share-links/mine?pageSize=10');
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json().data;
    expect(p.total).toBe(2);
    expect(p.list.map((l: { id: number }) => l.id)).toEqual([second.id, first.id]);
    expect(p.list[0]).toMatchObject({ node: { id: doc.id, name: 'offer.pdf' }, accessCount: 1, state: 'exhausted' });
    expect(p.list[1]).toMatchObject({ state: 'active', status: 'active' });
    expect(p.list[0].token).toBeUndefined();
    expect(JSON.stringify(p)).not.toContain(first.token);
  });

  it('shows expired, revoked and disabled states', async () => {
    const me = await user(a);
    await grant(t, a.tenantId, top, { type: 'user', id: me.userId }, 'editor');
    const old = await newLink(me.token);
    await t.database.db
      .update(driveShareLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(driveShareLinks.id, old.id));
    const gone = await newLink(me.token);
    expect((await revoke(me.token, gone.id)).statusCode).toBe(200);
    const states = async () =>
      Object.fromEntries(
        (await get(me.token, '/api/drive/share-links/mine'))
          .json()
          .data.list.map((l: { id: number; state: string }) => [l.id, l.state]),
      );
    expect(await states()).toEqual({ [old.id]: 'expired', [gone.id]: 'revoked' });
    await setDriveSettings(t, a.adminToken, { externalShareEnabled: false });
    expect(await states()).toEqual({ [old.id]: 'disabled', [gone.id]: 'revoked' });
    await setDriveSettings(t, a.adminToken, { externalShareEnabled: true });
  });

  it('refuses bad paging naming the field; needs drive:node:view', async () => {
    expectError(
      await get(u.editor.token, '/api/drive/share-links/mine?pageSize=0'),
      400,
      'request.validation_failed',
      'pageSize',
    );
    const none = await user(a, []);
    expectError(await get(none.token, '/api/drive/share-links/mine'), 403, 'auth.permission_denied');
  });
});

describe('GET /api/drive/share-links?spaceId (space managers)', () => {
  it('lists every link of the space to a manager', async () => {
    const l = await newLink(u.editor2.token);
    const res = await get(u.owner.token, `/api/drive/share-links?spaceId=${sp.id}&pageSize=200`);
    expect(res.statusCode, res.body).toBe(200);
    const ids = res.json().data.list.map((x: { id: number }) => x.id);
    expect(ids).toContain(l.id);
    expect(ids).not.toContain(otherLink.id);
    expect(res.json().data.list.every((x: { spaceId: number }) => x.spaceId === sp.id)).toBe(true);
  });

  it('member below manager 403; no space role 404; another tenant’s space 404; bad spaceId 400; no permission 403', async () => {
    const member = await user(a);
    await t.database.db
      .insert(driveSpaceMembers)
      .values({ tenantId: a.tenantId, spaceId: sp.id, subjectType: 'user', subjectId: member.userId, role: 'editor' });
    expectError(await get(member.token, `/api/drive/share-links?spaceId=${sp.id}`), 403, 'drive.role_too_low');
    expectError(await get(u.editor.token, `/api/drive/share-links?spaceId=${sp.id}`), 404, 'drive.space_not_found');
    const [row] = await t.database.db.select().from(driveShareLinks).where(eq(driveShareLinks.id, otherLink.id));
    expectError(
      await get(a.adminToken, `/api/drive/share-links?spaceId=${row?.spaceId}`),
      404,
      'drive.space_not_found',
    );
    expectError(
      await get(u.owner.token, '/api/drive/share-links?spaceId=abc'),
      400,
      'request.validation_failed',
      'spaceId',
    );
    expectError(await get(u.owner.token, '/api/drive/share-links'), 400, 'request.validation_failed', 'spaceId');
    const none = await user(a, []);
    expectError(await get(none.token, `/api/drive/share-links?spaceId=${sp.id}`), 403, 'auth.permission_denied');
  });
});

describe('GET /api/drive/share-links/{id}', () => {
  it('gives the creator and a manager the token and url again; others 404', async () => {
    const l = await newLink(u.editor.token);
    for (const who of [u.editor, u.owner]) {
      const res = await get(who.token, `/api/drive/share-links/${l.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ id: l.id, token: l.token, url: l.url });
    }
    expectError(await get(u.editor2.token, `/api/drive/share-links/${l.id}`), 404, 'drive.share_link_not_found');
    expectError(await get(u.viewer.token, `/api/drive/share-links/${l.id}`), 404, 'drive.share_link_not_found');
    expectError(await get(a.adminToken, `/api/drive/share-links/${otherLink.id}`), 404, 'drive.share_link_not_found');
    expectError(await get(u.owner.token, '/api/drive/share-links/0'), 400, 'request.validation_failed', 'id');
    const none = await user(a, []);
    expectError(await get(none.token, `/api/drive/share-links/${l.id}`), 403, 'auth.permission_denied');
  });
});

describe('PUT /api/drive/share-links/{id}', () => {
  it('changes the fields given; a password change or removal bumps session_version', async () => {
    const l = await newLink(u.editor.token, { password: 'first password' });
    const res = await put(u.editor.token, l.id, {
      title: 'Renamed',
      maxDownloadCount: 3,
      allowedIps: ['192.168.1.7'],
      capabilities: ['preview', 'save'],
      watermark: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      title: 'Renamed',
      maxDownloadCount: 3,
      allowedIps: ['192.168.1.7'],
      capabilities: ['preview', 'save'],
      watermark: true,
      hasPassword: true,
      token: l.token,
    });
    expect((await linkRow(t, l.id))?.sessionVersion).toBe(1);

    expect((await put(u.editor.token, l.id, { password: 'second password' })).statusCode).toBe(200);
    let row = await linkRow(t, l.id);
    expect(row?.sessionVersion).toBe(2);
    expect(await verifyPassword(row?.passwordHash ?? '', 'second password')).toBe(true);

    const removed = await put(u.owner.token, l.id, { password: null, expiresAt: inDays(1), maxDownloadCount: null });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data).toMatchObject({ hasPassword: false, maxDownloadCount: null });
    row = await linkRow(t, l.id);
    expect(row).toMatchObject({ sessionVersion: 3, passwordHash: null });
    const acts = (await activitiesOfNode(t, doc.id)).filter((x) => x.action === 'share.update');
    expect(acts.length).toBeGreaterThanOrEqual(3);
  });

  it('refuses bad input naming the field, changing nothing', async () => {
    const l = await newLink(u.editor.token);
    const before = await linkRow(t, l.id);
    const cases: [object, string][] = [
      [{ title: 'x'.repeat(101) }, 'title'],
      [{ password: 'short' }, 'password'],
      [{ maxAccessCount: 0 }, 'maxAccessCount'],
      [{ allowedIps: ['10.0.0.0/33'] }, 'allowedIps.0'],
      [{ allowedIps: ['10.0.0.1', 'example.com'] }, 'allowedIps.1'],
      [{ capabilities: ['share'] }, 'capabilities.0'],
      [{ expiresAt: inDays(-1) }, 'expiresAt'],
      [{ expiresAt: inDays(31) }, 'expiresAt'],
      [{ expiresAt: null }, 'expiresAt'], // externalShareMaxDays is 30 by default
    ];
    for (const [body, field] of cases) {
      const res = await put(u.editor.token, l.id, body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
      expectError(res, 400, 'request.validation_failed', field);
    }
    expect(await linkRow(t, l.id)).toEqual(before);
  });

  it('removing the expiry names the setting that requires one (externalShareMaxDays, 30 by default)', async () => {
    const l = await newLink(u.editor.token);
    const res = await put(u.editor.token, l.id, { expiresAt: null });
    expectError(res, 400, 'request.validation_failed', 'expiresAt');
    expect(res.json().details[0].message).toBe(
      'is required: the drive setting externalShareMaxDays (30) limits share links to 30 days; ' +
        'an administrator sets it to 0 to allow links without expiry',
    );
  });

  it('keeps the password when externalShareRequirePassword is on', async () => {
    const s = await createTenant(t);
    const owner = await user(s);
    const ssp = await space(t, s.tenantId, { type: 'team', ownerUserId: owner.userId });
    const sdoc = await file(t, s.tenantId, ssp.id, null, 'x.txt');
    const l = (await createLink(t, owner.token, { nodeId: sdoc.id, password: 'a good password' })).json().data;
    await setDriveSettings(t, s.adminToken, { externalShareRequirePassword: true });
    expectError(await put(owner.token, l.id, { password: null }), 400, 'request.validation_failed', 'password');
    expect((await linkRow(t, l.id))?.passwordHash).not.toBeNull();
  });

  it('others 404; another tenant 404 unchanged; no permission 403; a revoked link 409', async () => {
    const l = await newLink(u.editor.token);
    expectError(await put(u.editor2.token, l.id, { title: 'mine now' }), 404, 'drive.share_link_not_found');
    const before = await linkRow(t, otherLink.id);
    expectError(await put(a.adminToken, otherLink.id, { title: 'x' }), 404, 'drive.share_link_not_found');
    expect(await linkRow(t, otherLink.id)).toEqual(before);
    expectError(await put(u.readOnly.token, l.id, { title: 'x' }), 403, 'auth.permission_denied');
    expect((await revoke(u.editor.token, l.id)).statusCode).toBe(200);
    expectError(await put(u.editor.token, l.id, { title: 'x' }), 409, 'drive.share_link_revoked');
    expect((await linkRow(t, l.id))?.title).toBe('');
  });
});

describe('POST /api/drive/share-links/{id}/revoke', () => {
  it('revokes once (status, revoked_at/by, session_version + 1); again is a no-op', async () => {
    const l = await newLink(u.editor.token);
    const res = await revoke(u.editor.token, l.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'revoked', state: 'revoked', revokedBy: u.editor.userId });
    const row = await linkRow(t, l.id);
    expect(row).toMatchObject({ status: 'revoked', revokedBy: u.editor.userId, sessionVersion: 2 });
    expect(row?.revokedAt).toBeInstanceOf(Date);
    const again = await revoke(u.editor.token, l.id);
    expect(again.statusCode).toBe(200);
    expect(await linkRow(t, l.id)).toEqual(row);
    const acts = (await activitiesOfNode(t, doc.id)).filter(
      (x) => x.action === 'share.revoke' && (x.detail as { linkId: number }).linkId === l.id,
    );
    expect(acts).toHaveLength(1);
  });

  it("a manager revokes someone else's link; another editor cannot (404)", async () => {
    const l = await newLink(u.editor.token);
    expectError(await revoke(u.editor2.token, l.id), 404, 'drive.share_link_not_found');
    expect((await linkRow(t, l.id))?.status).toBe('active');
    const res = await revoke(u.owner.token, l.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(await linkRow(t, l.id)).toMatchObject({ status: 'revoked', revokedBy: u.owner.userId });
  });

  it('another tenant 404 unchanged; no permission 403; bad id 400', async () => {
    const before = await linkRow(t, otherLink.id);
    expectError(await revoke(a.adminToken, otherLink.id), 404, 'drive.share_link_not_found');
    expect(await linkRow(t, otherLink.id)).toEqual(before);
    const l = await newLink(u.editor.token);
    expectError(await revoke(u.readOnly.token, l.id), 403, 'auth.permission_denied');
    expect((await linkRow(t, l.id))?.status).toBe('active');
    expectError(await revoke(u.owner.token, 2_147_483_648), 400, 'request.validation_failed', 'id');
  });
});
