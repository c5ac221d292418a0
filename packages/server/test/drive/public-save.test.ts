import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import {
  driveActivities,
  driveFileVersions,
  driveNodePermissions,
  driveNodes,
  driveShareAccessLogs,
  driveShareLinks,
  driveSpaces,
} from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { member, usedBytes } from './nodes-fixtures.ts';
import { shareLink } from './public-fixtures.ts';

/**
 * POST /api/drive/public/shares/{token}/save (issue 15): a signed-in user of the link's tenant
 * copies what the link shares into their own drive.
 */
let t: TestApp;
let a: TenantFixture;
let b: TenantFixture;
let owner: DriveUser;
let saver: DriveUser;
let stranger: DriveUser;
let teamSpaceId: number;
// a space of tenant a: shared/ {sub/ {deep.txt}, top.txt}, outside.txt; a team space where saver is editor or viewer
let shared: NodeRow;
let sub: NodeRow;
let deep: NodeRow;
let top: NodeRow;
let outside: NodeRow;
let writable: NodeRow;
let readOnly: NodeRow;
let invisible: NodeRow;

const SAVE_CAPS = ['preview', 'download', 'save'] as ('preview' | 'download' | 'save')[];
const link = (node: NodeRow, opts: Parameters<typeof shareLink>[3] = {}) =>
  shareLink(t, node, owner.userId, { capabilities: SAVE_CAPS, ...opts });
const saveAs = (who: DriveUser, linkToken: string, body: object = {}, headers: Record<string, string> = {}) =>
  call(t.app, 'POST', `/api/drive/public/shares/${linkToken}/save`, { token: who.token, body, headers });

async function personalSpace(userId: number) {
  const [row] = await t.database.db
    .select()
    .from(driveSpaces)
    .where(and(eq(driveSpaces.type, 'personal'), eq(driveSpaces.ownerUserId, userId)));
  return row;
}
const nodeCount = async () => (await t.database.db.select({ n: count() }).from(driveNodes))[0]?.n;
const logs = (linkId: number) =>
  t.database.db.select().from(driveShareAccessLogs).where(eq(driveShareAccessLogs.linkId, linkId));
const downloads = async (linkId: number) => (await rowById(t, driveShareLinks, linkId))?.downloadCount;

/** A refused save writes nothing: no node, no count, no log. */
async function expectNothingWritten(linkId: number, run: () => Promise<void>) {
  const before = { nodes: await nodeCount(), downloads: await downloads(linkId), logs: (await logs(linkId)).length };
  await run();
  expect({ nodes: await nodeCount(), downloads: await downloads(linkId), logs: (await logs(linkId)).length }).toEqual(
    before,
  );
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  b = await createTenant(t);
  owner = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  saver = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
  stranger = await driveUser(t, { tenantId: b.tenantId, tenantCode: b.code });
  const sp = await space(t, a.tenantId, { ownerUserId: owner.userId });
  shared = await folder(t, a.tenantId, sp.id, null, 'shared');
  sub = await folder(t, a.tenantId, sp.id, shared, 'sub');
  deep = await file(t, a.tenantId, sp.id, sub, 'deep.txt', 'deep content');
  top = await file(t, a.tenantId, sp.id, shared, 'top.txt', '0123456789abcdefghij');
  outside = await file(t, a.tenantId, sp.id, null, 'outside.txt');
  const team = await space(t, a.tenantId, { ownerUserId: owner.userId });
  teamSpaceId = team.id;
  writable = await folder(t, a.tenantId, team.id, null, 'inbox');
  await member(t, a.tenantId, team.id, { type: 'user', id: saver.userId }, 'editor');
  const ro = await space(t, a.tenantId, { ownerUserId: owner.userId });
  readOnly = await folder(t, a.tenantId, ro.id, null, 'read-only');
  await member(t, a.tenantId, ro.id, { type: 'user', id: saver.userId }, 'viewer');
  const hidden = await space(t, a.tenantId, { ownerUserId: owner.userId });
  invisible = await folder(t, a.tenantId, hidden.id, null, 'hidden');
});
afterAll(async () => t?.close());

describe('save a shared file', () => {
  it("copies it into the root of the caller's personal space, owned by them, counted and logged as a download", async () => {
    const l = await link(top);
    const res = await saveAs(saver, l.token, {}, { 'user-agent': 'ua-save' });
    expect(res.statusCode, res.body).toBe(201);
    const out = res.json().data;
    const personal = await personalSpace(saver.userId);
    expect(personal).toBeDefined();
    expect(out).toMatchObject({
      node: { name: 'top.txt', type: 'file', spaceId: personal?.id, parentId: null },
      nodeCount: 1,
      bytes: 20,
    });
    const copy = await rowById(t, driveNodes, out.node.id);
    expect(copy).toMatchObject({ tenantId: a.tenantId, createdBy: saver.userId, size: 20 });
    // the same managed file, referenced (no bytes copied), and no grants
    const [v] = await t.database.db
      .select()
      .from(driveFileVersions)
      .where(eq(driveFileVersions.nodeId, copy?.id as number));
    const [orig] = await t.database.db.select().from(driveFileVersions).where(eq(driveFileVersions.nodeId, top.id));
    expect(v?.fileId).toBe(orig?.fileId);
    const grants = await t.database.db
      .select()
      .from(driveNodePermissions)
      .where(eq(driveNodePermissions.nodeId, out.node.id));
    expect(grants).toHaveLength(0);
    expect(await usedBytes(t, personal?.id as number)).toBe(20);
    expect(await downloads(l.id)).toBe(1);
    const rows = await logs(l.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      event: 'download',
      nodeId: top.id,
      userId: saver.userId,
      userAgent: 'ua-save',
      detail: { saved: true, userId: saver.userId },
    });
    const [act] = await t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, out.node.id));
    expect(act).toMatchObject({ action: 'node.copy', detail: { sourceId: top.id, shareLinkId: l.id } });
    // the saver can read their copy through the drive
    const mine = await call(t.app, 'GET', `/api/drive/nodes/${out.node.id}`, { token: saver.token });
    expect(mine.statusCode, mine.body).toBe(200);
  });

  it('keeps both when the name is taken', async () => {
    const l = await link(top);
    const first = await saveAs(saver, l.token);
    expect(first.statusCode, first.body).toBe(201);
    const second = await saveAs(saver, l.token);
    expect(second.statusCode, second.body).toBe(201);
    const names = [first.json().data.node.name, second.json().data.node.name];
    expect(names).toContain('top (1).txt');
    expect(new Set(names).size).toBe(2);
  });

  it('into a folder the caller may create in', async () => {
    const l = await link(top);
    const res = await saveAs(saver, l.token, { targetParentId: writable.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.node).toMatchObject({ spaceId: teamSpaceId, parentId: writable.id, name: 'top.txt' });
  });

  it('a link with save but without download may be saved (the bytes stay in the tenant)', async () => {
    const l = await link(top, { capabilities: ['preview', 'save'] });
    expect((await saveAs(saver, l.token)).statusCode).toBe(201);
    // and its content is still refused
    const content = await t.app.inject({ method: 'GET', url: `/api/drive/public/shares/${l.token}/content` });
    expectError(content, 403, 'drive.share_preview_only');
  });
});

describe('save a shared folder', () => {
  it('copies the whole subtree, quota charged; nodeId picks a node under it', async () => {
    const l = await link(shared);
    const u = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
    const res = await saveAs(u, l.token);
    expect(res.statusCode, res.body).toBe(201);
    const out = res.json().data;
    expect(out).toMatchObject({ node: { name: 'shared', type: 'folder' }, nodeCount: 4, bytes: 32 });
    const personal = await personalSpace(u.userId);
    const copies = await t.database.db
      .select()
      .from(driveNodes)
      .where(eq(driveNodes.spaceId, personal?.id as number));
    expect(copies.map((n) => n.name).sort()).toEqual(['deep.txt', 'shared', 'sub', 'top.txt']);
    for (const n of copies) expect(n.createdBy).toBe(u.userId);
    const deepCopy = copies.find((n) => n.name === 'deep.txt');
    const subCopy = copies.find((n) => n.name === 'sub');
    expect(deepCopy?.parentId).toBe(subCopy?.id);
    expect(subCopy?.parentId).toBe(out.node.id);
    expect(await usedBytes(t, personal?.id as number)).toBe(32);
    expect(await downloads(l.id)).toBe(1);
    // a node under the shared folder
    const one = await saveAs(u, l.token, { nodeId: deep.id });
    expect(one.statusCode, one.body).toBe(201);
    expect(one.json().data).toMatchObject({ node: { name: 'deep.txt', parentId: null }, nodeCount: 1, bytes: 12 });
    const some = await saveAs(u, l.token, { nodeId: sub.id });
    expect(some.json().data).toMatchObject({ node: { name: 'sub', type: 'folder', parentId: null }, nodeCount: 2 });
  });

  it('a node outside the shared folder is 404; nothing written', async () => {
    const l = await link(shared);
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(saver, l.token, { nodeId: outside.id }), 404, 'drive.node_not_found');
      expectError(await saveAs(saver, l.token, { nodeId: invisible.id }), 404, 'drive.node_not_found');
      expectError(await saveAs(saver, l.token, { nodeId: 999_999 }), 404, 'drive.node_not_found');
    });
  });
});

describe('refusals', () => {
  it('without the save capability: 403, nothing written', async () => {
    const l = await link(top, { capabilities: ['preview', 'download'] });
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(saver, l.token), 403, 'drive.share_save_not_allowed');
    });
  });

  it('signed out: 401, nothing written', async () => {
    const l = await link(top);
    await expectNothingWritten(l.id, async () => {
      const res = await call(t.app, 'POST', `/api/drive/public/shares/${l.token}/save`, { body: {} });
      expect(res.statusCode, res.body).toBe(401);
    });
  });

  it('a password link needs its session', async () => {
    const l = await link(top, { password: 'correct horse' });
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(saver, l.token), 401, 'drive.share_password_required');
      expectError(
        await saveAs(saver, l.token, {}, { 'x-share-session': 'forged' }),
        401,
        'drive.share_password_required',
      );
    });
    const pw = await call(t.app, 'POST', `/api/drive/public/shares/${l.token}/password`, {
      body: { password: 'correct horse' },
    });
    expect(pw.statusCode, pw.body).toBe(200);
    const res = await saveAs(saver, l.token, {}, { 'x-share-session': pw.json().data.sessionToken });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('a user of another tenant: 403 drive.share_save_other_tenant, nothing written', async () => {
    const l = await link(top);
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(stranger, l.token), 403, 'drive.share_save_other_tenant');
    });
    expect(await personalSpace(stranger.userId)).toBeUndefined();
  });

  it('a target the caller may not write: 403 below editor, 404 unseen, 400 a file; nothing written', async () => {
    const l = await link(top);
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(saver, l.token, { targetParentId: readOnly.id }), 403, 'drive.role_too_low');
      expectError(await saveAs(saver, l.token, { targetParentId: invisible.id }), 404, 'drive.node_not_found');
      expectError(await saveAs(saver, l.token, { targetParentId: 999_999 }), 404, 'drive.node_not_found');
      const f = await saveAs(owner, l.token, { targetParentId: top.id });
      expectError(f, 400, 'drive.not_a_folder', 'targetParentId');
    });
  });

  it('bad input names the field; nothing written', async () => {
    const l = await link(top);
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(saver, l.token, { nodeId: 0 }), 400, 'request.validation_failed', 'nodeId');
      expectError(
        await saveAs(saver, l.token, { targetParentId: 'x' }),
        400,
        'request.validation_failed',
        'targetParentId',
      );
      expectError(
        await saveAs(saver, l.token, { targetParentId: 2 ** 40 }),
        400,
        'request.validation_failed',
        'targetParentId',
      );
    });
  });

  it('revoked, expired and unknown links', async () => {
    const revoked = await link(top, { status: 'revoked' });
    expectError(await saveAs(saver, revoked.token), 410, 'drive.share_revoked');
    const expired = await link(top, { expiresAt: new Date(Date.now() - 1000) });
    expectError(await saveAs(saver, expired.token), 410, 'drive.share_expired');
    expectError(await saveAs(saver, 'nope'), 404, 'drive.share_not_found');
  });

  it('a save past the quota is 413 and takes no download', async () => {
    const u = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
    const l = await link(top);
    expect((await saveAs(u, l.token)).statusCode).toBe(201);
    const personal = await personalSpace(u.userId);
    await t.database.db
      .update(driveSpaces)
      .set({ quotaBytes: 30 })
      .where(eq(driveSpaces.id, personal?.id as number));
    await expectNothingWritten(l.id, async () => {
      expectError(await saveAs(u, l.token), 413, 'drive.quota_exceeded');
    });
    expect(await usedBytes(t, personal?.id as number)).toBe(20);
  });
});

describe('the download limit', () => {
  it('20 parallel saves against a limit of 5: exactly 5 succeed, the rest 410 with nothing written', async () => {
    const u = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code });
    const l = await link(top, { maxDownloadCount: 5 });
    // the personal space exists first, so the saves race on the link only
    expect((await call(t.app, 'GET', '/api/drive/spaces', { token: u.token })).statusCode).toBe(200);
    expect(await personalSpace(u.userId)).toBeDefined();
    const results = await Promise.all(Array.from({ length: 20 }, () => saveAs(u, l.token)));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 410)).toHaveLength(15);
    for (const r of results.filter((x) => x.statusCode === 410)) expectError(r, 410, 'drive.share_exhausted');
    expect(await downloads(l.id)).toBe(5);
    expect(await logs(l.id)).toHaveLength(5);
    const personal = await personalSpace(u.userId);
    const copies = await t.database.db
      .select()
      .from(driveNodes)
      .where(eq(driveNodes.spaceId, personal?.id as number));
    expect(copies).toHaveLength(5);
    expect(await usedBytes(t, personal?.id as number)).toBe(100);
    // the content route sees the same limit
    const content = await t.app.inject({ method: 'GET', url: `/api/drive/public/shares/${l.token}/content` });
    expectError(content, 410, 'drive.share_exhausted');
  });
});
