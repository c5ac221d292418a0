import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveShareLinks, driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { createCollect, publicBase } from './collect-helpers.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant } from './permissions-helpers.ts';
import { createLink, inDays, linkRow, setDriveSettings } from './shares-helpers.ts';

/**
 * Collection links through the share-link management (issue 15 item 3): kind 'collect' on a
 * folder, its policy (collect_policy) checked and normalised, the options that do not apply
 * refused, the same roles and tenant rules as share links, and the lists showing them with their
 * totals and state; the anonymous metadata shows the policy, never the folder's content.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'editor' | 'viewer' | 'stranger', DriveUser> = {} as never;
let sp: SpaceRow;
let inbox: NodeRow;
let inside: NodeRow;
let otherFolder: NodeRow;

const user = (x: TenantFixture) => driveUser(t, { tenantId: x.tenantId, tenantCode: x.code });

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.editor = await user(a);
  u.viewer = await user(a);
  u.stranger = await user(a);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'HR' });
  inbox = await folder(t, a.tenantId, sp.id, null, 'Applications');
  inside = await file(t, a.tenantId, sp.id, inbox, 'secret-cv.pdf', 'private');
  await grant(t, a.tenantId, inbox, { type: 'user', id: u.editor.userId }, 'editor');
  await grant(t, a.tenantId, inbox, { type: 'user', id: u.viewer.userId }, 'viewer');
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
  otherFolder = await folder(t, other.tenantId, osp.id, null, 'theirs');
});
afterAll(async () => t?.close());

describe('creating a collection link', () => {
  it('makes a collect link on a folder with the tenant defaults and a normalised policy', async () => {
    const res = await createLink(t, u.editor.token, {
      nodeId: inbox.id,
      kind: 'collect',
      title: 'CVs 2027',
      collect: {
        allowedExtensions: ['.PDF', 'Docx', 'pdf'],
        requireName: true,
        maxFiles: 20,
        instructions: ' One CV each ',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const view = res.json().data;
    expect(view).toMatchObject({
      kind: 'collect',
      node: { id: inbox.id, name: 'Applications' },
      capabilities: [],
      watermark: false,
      state: 'active',
      collect: {
        maxFileSizeMb: 100,
        allowedExtensions: ['pdf', 'docx'],
        requireName: true,
        maxFiles: 20,
        maxTotalMb: null,
        instructions: 'One CV each',
        fileCount: 0,
        bytes: 0,
        remainingFiles: 20,
        remainingBytes: null,
      },
    });
    expect(view.url).toBe(`http://127.0.0.1:3000/s/${view.token}`);
    const row = await linkRow(t, view.id);
    expect(row).toMatchObject({ kind: 'collect', createdBy: u.editor.userId, collectFileCount: 0 });
    expect(row?.collectPolicy).toMatchObject({ allowedExtensions: ['pdf', 'docx'], maxFileSizeMb: 100 });
  });

  it('refuses what does not fit a collection link, naming the field, writing nothing', async () => {
    const before = await rowCount(t, driveShareLinks);
    const cases: [object, string, string][] = [
      [{ nodeId: inside.id }, 'drive.not_a_folder', 'nodeId'],
      [{ nodeId: inbox.id, capabilities: ['download'] }, 'request.validation_failed', 'capabilities'],
      [{ nodeId: inbox.id, maxDownloadCount: 3 }, 'request.validation_failed', 'maxDownloadCount'],
      [{ nodeId: inbox.id, watermark: true }, 'request.validation_failed', 'watermark'],
      [{ nodeId: inbox.id, collect: { maxFileSizeMb: 101 } }, 'request.validation_failed', 'collect.maxFileSizeMb'],
      [{ nodeId: inbox.id, collect: { maxFiles: 0 } }, 'request.validation_failed', 'collect.maxFiles'],
      [
        { nodeId: inbox.id, collect: { allowedExtensions: ['p df'] } },
        'request.validation_failed',
        'collect.allowedExtensions.0',
      ],
      [
        { nodeId: inbox.id, collect: { instructions: 'x'.repeat(2001) } },
        'request.validation_failed',
        'collect.instructions',
      ],
    ];
    for (const [body, key, field] of cases) {
      const res = await createLink(t, u.editor.token, { kind: 'collect', ...body });
      expectError(res, 400, key, field);
    }
    // a policy on a share link
    expectError(
      await createLink(t, u.editor.token, { nodeId: inbox.id, collect: { maxFiles: 2 } }),
      400,
      'request.validation_failed',
      'collect',
    );
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it('the file size may tighten the tenant cap, never pass it', async () => {
    await setDriveSettings(t, a.adminToken, { collectMaxFileSizeMb: 5 });
    try {
      const l = await createCollect(t, u.editor.token, inbox.id);
      expect(l.collect.maxFileSizeMb).toBe(5);
      expect((await createCollect(t, u.editor.token, inbox.id, { maxFileSizeMb: 2 })).collect.maxFileSizeMb).toBe(2);
      expectError(
        await createLink(t, u.editor.token, { nodeId: inbox.id, kind: 'collect', collect: { maxFileSizeMb: 6 } }),
        400,
        'request.validation_failed',
        'collect.maxFileSizeMb',
      );
    } finally {
      await setDriveSettings(t, a.adminToken, { collectMaxFileSizeMb: 100 });
    }
  });

  it('needs the editor role; a viewer 403, no role and another tenant 404', async () => {
    const before = await rowCount(t, driveShareLinks);
    const body = { nodeId: inbox.id, kind: 'collect' };
    expectError(await createLink(t, u.viewer.token, body), 403, 'drive.role_too_low');
    expectError(await createLink(t, u.stranger.token, body), 404, 'drive.node_not_found');
    const outsider = await user(other);
    expectError(await createLink(t, outsider.token, body), 404, 'drive.node_not_found');
    expectError(
      await createLink(t, u.editor.token, { nodeId: otherFolder.id, kind: 'collect' }),
      404,
      'drive.node_not_found',
    );
    expect(await rowCount(t, driveShareLinks)).toBe(before);
  });

  it('applies the external-share rules: the switches, the maximum validity, the required password', async () => {
    const body = { nodeId: inbox.id, kind: 'collect' };
    await t.database.db.update(driveSpaces).set({ externalShareEnabled: false }).where(eq(driveSpaces.id, sp.id));
    try {
      expectError(await createLink(t, u.editor.token, body), 403, 'drive.external_share_disabled');
    } finally {
      await t.database.db.update(driveSpaces).set({ externalShareEnabled: true }).where(eq(driveSpaces.id, sp.id));
    }
    await setDriveSettings(t, a.adminToken, { externalShareRequirePassword: true, externalShareMaxDays: 3 });
    try {
      expectError(
        await createLink(t, u.editor.token, { ...body, expiresAt: inDays(2) }),
        400,
        'request.validation_failed',
        'password',
      );
      expectError(
        await createLink(t, u.editor.token, { ...body, password: 'long enough', expiresAt: inDays(5) }),
        400,
        'request.validation_failed',
        'expiresAt',
      );
      const ok = await createLink(t, u.editor.token, { ...body, password: 'long enough', expiresAt: inDays(2) });
      expect(ok.statusCode, ok.body).toBe(201);
      expect(ok.json().data.hasPassword).toBe(true);
    } finally {
      await setDriveSettings(t, a.adminToken, { externalShareRequirePassword: false, externalShareMaxDays: 30 });
    }
  });
});

describe('changing a collection link', () => {
  it('changes the policy fields given, keeps the others, and refuses the share-only options', async () => {
    const l = await createCollect(t, u.editor.token, inbox.id, { allowedExtensions: ['pdf'], maxFiles: 3 });
    const put = (token: string, body: object) => call(t.app, 'PUT', `/api/drive/share-links/${l.id}`, { token, body });
    const res = await put(u.editor.token, { collect: { maxFiles: null, maxTotalMb: 50, requireName: true } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.collect).toMatchObject({
      allowedExtensions: ['pdf'],
      maxFiles: null,
      maxTotalMb: 50,
      requireName: true,
      remainingBytes: 50 * 1024 * 1024,
    });
    expectError(
      await put(u.editor.token, { capabilities: ['preview'] }),
      400,
      'request.validation_failed',
      'capabilities',
    );
    expectError(
      await put(u.editor.token, { maxDownloadCount: 1 }),
      400,
      'request.validation_failed',
      'maxDownloadCount',
    );
    expectError(
      await put(u.editor.token, { collect: { maxFileSizeMb: 1000 } }),
      400,
      'request.validation_failed',
      'collect.maxFileSizeMb',
    );
    // the creator or a manager only
    expectError(await put(u.viewer.token, { title: 'x' }), 404, 'drive.share_link_not_found');
    expect((await linkRow(t, l.id))?.collectPolicy).toMatchObject({ maxFiles: null, maxTotalMb: 50 });
    // a share link takes no policy
    const share = await createLink(t, u.editor.token, { nodeId: inbox.id });
    const res2 = await call(t.app, 'PUT', `/api/drive/share-links/${share.json().data.id}`, {
      token: u.editor.token,
      body: { collect: { maxFiles: 1 } },
    });
    expectError(res2, 400, 'request.validation_failed', 'collect');
  });
});

describe('lists and states', () => {
  it('my links and the space list show collection links with their totals; a reached limit is exhausted', async () => {
    const l = await createCollect(t, u.editor.token, inbox.id, { maxFiles: 2 });
    await t.database.db
      .update(driveShareLinks)
      .set({ collectFileCount: 2, collectBytes: 1234 })
      .where(eq(driveShareLinks.id, l.id));
    const mine = await call(t.app, 'GET', '/api/drive/share-links/mine?pageSize=100', { token: u.editor.token });
    expect(mine.statusCode, mine.body).toBe(200);
    const seen = mine.json().data.list.find((x: { id: number }) => x.id === l.id);
    expect(seen).toMatchObject({
      kind: 'collect',
      state: 'exhausted',
      collect: { fileCount: 2, bytes: 1234, remainingFiles: 0 },
    });
    const ofSpace = await call(t.app, 'GET', `/api/drive/share-links?spaceId=${sp.id}&pageSize=100`, {
      token: u.owner.token,
    });
    expect(
      ofSpace.json().data.list.some((x: { id: number; kind: string }) => x.id === l.id && x.kind === 'collect'),
    ).toBe(true);
    const share = await createLink(t, u.editor.token, { nodeId: inbox.id });
    expect(share.json().data).toMatchObject({ kind: 'share', collect: null });
  });
});

describe('anonymous metadata of a collection link', () => {
  it('shows the folder name, the policy and what is left, never the content', async () => {
    const l = await createCollect(t, u.editor.token, inbox.id, {
      allowedExtensions: ['pdf'],
      maxFiles: 5,
      maxTotalMb: 10,
      instructions: 'Your CV, please',
    });
    await t.database.db
      .update(driveShareLinks)
      .set({ collectFileCount: 1, collectBytes: 1024 * 1024 })
      .where(eq(driveShareLinks.id, l.id));
    const res = await t.app.inject({ method: 'GET', url: publicBase(l.token) });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      passwordRequired: false,
      kind: 'collect',
      node: { id: inbox.id, name: 'Applications', type: 'folder' },
      collect: {
        allowedExtensions: ['pdf'],
        maxFiles: 5,
        maxTotalMb: 10,
        instructions: 'Your CV, please',
        remainingFiles: 4,
        remainingBytes: 9 * 1024 * 1024,
      },
    });
    expect(data.capabilities).toBeUndefined();
    expect(res.body).not.toContain('secret-cv');
    // browse and content are for share links only
    expectError(
      await t.app.inject({ method: 'GET', url: `${publicBase(l.token)}/nodes` }),
      404,
      'drive.share_not_found',
    );
    expectError(
      await t.app.inject({ method: 'GET', url: `${publicBase(l.token)}/content?nodeId=${inside.id}` }),
      404,
      'drive.share_not_found',
    );
  });

  it('a password collect link shows nothing but the need for the password until a session is opened', async () => {
    const l = await createCollect(t, u.editor.token, inbox.id, {}, { password: 'collect-pass' });
    const bare = await t.app.inject({ method: 'GET', url: publicBase(l.token) });
    expect(bare.json().data).toEqual({ passwordRequired: true, hasSession: false });
    const pw = await t.app.inject({
      method: 'POST',
      url: `${publicBase(l.token)}/password`,
      payload: { password: 'collect-pass' },
    });
    expect(pw.statusCode, pw.body).toBe(200);
    const withSession = await t.app.inject({
      method: 'GET',
      url: publicBase(l.token),
      headers: { 'x-share-session': pw.json().data.sessionToken },
    });
    expect(withSession.json().data).toMatchObject({
      hasSession: true,
      kind: 'collect',
      node: { name: 'Applications' },
    });
  });
});
