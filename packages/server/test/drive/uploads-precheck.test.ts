import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveNodes } from '../../src/modules/drive/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, space } from './drive-fixtures.ts';
import {
  createDriveTestApp,
  type DriveTestApp,
  driveState,
  member,
  refsOf,
  sha256,
  spaceRow,
  text,
  upload,
  versionsOf,
} from './uploads-helpers.ts';

/**
 * POST /api/drive/nodes/precheck (spec §4.3 rule 2): instant upload only from content of a live
 * node of the tenant the caller may download; otherwise the client is told how to upload.
 */
let t: DriveTestApp;
let alice: DriveUser;
let bob: DriveUser;
let other: TenantFixture;
const demo = () => t.demoTenantId;

beforeAll(async () => {
  t = await createDriveTestApp();
  alice = await driveUser(t);
  bob = await driveUser(t);
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const precheck = (token: string, body: object) => call(t.app, 'POST', '/api/drive/nodes/precheck', { token, body });

/** alice's own space, and a source space of bob's where alice has `role` */
async function setup(role: 'viewer' | 'downloader' | null, content = text(400)) {
  const mine = await space(t, demo(), { ownerUserId: alice.userId });
  const source = await space(t, demo(), { ownerUserId: bob.userId });
  if (role) await member(t, demo(), source.id, alice.userId, role);
  const src = await file(t, demo(), source.id, null, 'original.txt', content);
  return { mine, source, src, content };
}

describe('instant upload', () => {
  it('creates the file from the same managed file when the caller may download a live node holding it', async () => {
    const { mine, src, content } = await setup('downloader');
    const res = await precheck(alice.token, { spaceId: mine.id, name: 'copy.txt', size: 400, sha256: sha256(content) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json().data;
    expect(body).toMatchObject({ instant: true, skipped: false, node: { name: 'copy.txt', size: 400, versionNo: 1 } });
    expect(body.node.sha256).toBe(sha256(content));
    const [srcVersion] = await versionsOf(t, src.id);
    const [newVersion] = await versionsOf(t, body.node.id);
    expect(newVersion?.fileId).toBe(srcVersion?.fileId);
    expect(await refsOf(t, srcVersion?.fileId as number)).toEqual(
      [`drive_version/${srcVersion?.id}`, `drive_version/${newVersion?.id}`].sort(),
    );
    expect((await spaceRow(t, mine.id)).usedBytes).toBe(400);
  });

  it('an older (not current) version of a live node counts too; upper-case hex is accepted', async () => {
    const { mine, src, content } = await setup('downloader');
    const v2 = await upload(t, bob.token, { nodeId: src.id }, { name: 'original.txt', data: text(10) });
    expect(v2.statusCode).toBe(201);
    const res = await precheck(alice.token, {
      spaceId: mine.id,
      name: 'old.txt',
      size: 400,
      sha256: sha256(content).toUpperCase(),
    });
    expect(res.json().data.instant).toBe(true);
  });

  it('is refused for a hash only in the trash, only in another tenant, or on a node the caller can only view', async () => {
    // a viewer of the source
    const viewed = await setup('viewer');
    let before = await driveState(t, viewed.mine.id);
    const res = await precheck(alice.token, {
      spaceId: viewed.mine.id,
      name: 'copy.txt',
      size: 400,
      sha256: sha256(viewed.content),
    });
    expect(res.json().data).toEqual({
      instant: false,
      skipped: false,
      node: null,
      chunkThresholdMb: 5,
      useChunked: false,
    });
    expect(await driveState(t, viewed.mine.id)).toEqual(before);
    // no role at all
    const hidden = await setup(null);
    expect(
      (
        await precheck(alice.token, {
          spaceId: hidden.mine.id,
          name: 'c.txt',
          size: 400,
          sha256: sha256(hidden.content),
        })
      ).json().data.instant,
    ).toBe(false);
    // in the recycle bin
    const trashed = await setup('downloader');
    await t.database.db.update(driveNodes).set({ deletedAt: new Date() }).where(eq(driveNodes.id, trashed.src.id));
    before = await driveState(t, trashed.mine.id);
    expect(
      (
        await precheck(alice.token, {
          spaceId: trashed.mine.id,
          name: 'c.txt',
          size: 400,
          sha256: sha256(trashed.content),
        })
      ).json().data.instant,
    ).toBe(false);
    expect(await driveState(t, trashed.mine.id)).toEqual(before);
    // in another tenant, where the content exists on a node its administrator manages
    const foreign = await space(t, other.tenantId, { ownerUserId: other.adminUserId });
    const content = text(400);
    await file(t, other.tenantId, foreign.id, null, 'theirs.txt', content);
    const mine = await space(t, demo(), { ownerUserId: alice.userId });
    expect(
      (await precheck(alice.token, { spaceId: mine.id, name: 'c.txt', size: 400, sha256: sha256(content) })).json().data
        .instant,
    ).toBe(false);
    // the size must match too
    const sized = await setup('downloader');
    expect(
      (
        await precheck(alice.token, { spaceId: sized.mine.id, name: 'c.txt', size: 401, sha256: sha256(sized.content) })
      ).json().data.instant,
    ).toBe(false);
  });

  it('says when to use the chunked upload; skip answers an existing file', async () => {
    const mine = await space(t, demo(), { ownerUserId: alice.userId });
    const big = await precheck(alice.token, {
      spaceId: mine.id,
      name: 'big.iso',
      size: 6 * 1024 * 1024,
      sha256: sha256('nothing like it'),
    });
    expect(big.json().data).toMatchObject({ instant: false, useChunked: true, chunkThresholdMb: 5 });
    const f = await file(t, demo(), mine.id, null, 'here.txt');
    const skip = await precheck(alice.token, {
      spaceId: mine.id,
      name: 'here.txt',
      size: 10,
      sha256: sha256('x'),
      conflict: 'skip',
    });
    expect(skip.json().data).toMatchObject({ instant: false, skipped: true, node: { id: f.id } });
  });

  it('charges the quota: content that does not fit is a 413 and nothing is created', async () => {
    const { content } = await setup('downloader');
    const small = await space(t, demo(), { ownerUserId: alice.userId, quotaBytes: 100 });
    const before = await driveState(t, small.id);
    expectError(
      await precheck(alice.token, { spaceId: small.id, name: 'c.txt', size: 400, sha256: sha256(content) }),
      413,
      'drive.quota_exceeded',
    );
    expect(await driveState(t, small.id)).toEqual(before);
  });
});

describe('precheck refusals', () => {
  it('refuses bad input naming the field, writing nothing', async () => {
    const mine = await space(t, demo(), { ownerUserId: alice.userId });
    const before = await driveState(t, mine.id);
    const ok = { spaceId: mine.id, name: 'a.txt', size: 10, sha256: sha256('a') };
    const invalid = 'request.validation_failed';
    expectError(await precheck(alice.token, { ...ok, sha256: 'xyz' }), 400, invalid, 'sha256');
    expectError(await precheck(alice.token, { ...ok, size: -1 }), 400, invalid, 'size');
    expectError(await precheck(alice.token, { ...ok, name: '' }), 400, invalid, 'name');
    expectError(await precheck(alice.token, { ...ok, name: 'a/b.txt' }), 400, invalid, 'name');
    expectError(await precheck(alice.token, { ...ok, name: 'run.bat' }), 400, 'files.blocked_type', 'name');
    expectError(await precheck(alice.token, { ...ok, spaceId: undefined }), 400, invalid, 'spaceId');
    expectError(await precheck(alice.token, { ...ok, extra: 1 }), 400, invalid);
    expect(await driveState(t, mine.id)).toEqual(before);
  });

  it('needs drive:node:edit, the editor role on the target, and a space of the caller’s tenant', async () => {
    const { mine, source, content } = await setup('downloader');
    const before = await driveState(t, source.id);
    const body = { spaceId: source.id, name: 'c.txt', size: 400, sha256: sha256(content) };
    expectError(await precheck(alice.token, body), 403, 'drive.role_too_low');
    const reader = await driveUser(t, { permissions: ['drive:node:view'] });
    expectError(await precheck(reader.token, { ...body, spaceId: mine.id }), 403, 'auth.permission_denied');
    expectError(await precheck(other.adminToken, { ...body, spaceId: mine.id }), 404, 'drive.space_not_found');
    expect(await driveState(t, source.id)).toEqual(before);
  });
});
