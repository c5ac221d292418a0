import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities } from '../../src/modules/drive/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import {
  createDriveTestApp,
  type DriveTestApp,
  driveState,
  driveVersionRefs,
  lockBy,
  member,
  refsOf,
  sha256,
  spaceRow,
  text,
  uploadVersion,
  versionsOf,
} from './uploads-helpers.ts';

/**
 * A file's versions (spec §4.3 rule 7): the list, a new version, rollback as a new version, pins,
 * and the version cap that removes the oldest unpinned versions and gives their bytes back.
 */
let t: DriveTestApp;
let owner: DriveUser;
let editor: DriveUser;
let viewer: DriveUser;
let other: TenantFixture;
const demo = () => t.demoTenantId;

beforeAll(async () => {
  t = await createDriveTestApp();
  owner = await driveUser(t);
  editor = await driveUser(t);
  viewer = await driveUser(t);
  other = await createTenant(t);
});
afterAll(async () => t?.close());

async function teamSpace(opts: Parameters<typeof space>[2] = {}) {
  const sp = await space(t, demo(), { ownerUserId: owner.userId, ...opts });
  await member(t, demo(), sp.id, editor.userId, 'editor');
  await member(t, demo(), sp.id, viewer.userId, 'viewer');
  return sp;
}

const list = (token: string, nodeId: number) => call(t.app, 'GET', `/api/drive/nodes/${nodeId}/versions`, { token });
const rollback = (token: string, nodeId: number, versionId: number) =>
  call(t.app, 'POST', `/api/drive/nodes/${nodeId}/versions/${versionId}/rollback`, { token });
const pin = (token: string, nodeId: number, versionId: number, body: unknown) =>
  call(t.app, 'PUT', `/api/drive/nodes/${nodeId}/versions/${versionId}/pin`, { token, body });

describe('versions', () => {
  it('uploads new versions and lists them newest first with the current one marked', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'doc.txt', 'first');
    const v2 = text(40);
    const res = await uploadVersion(t, editor.token, f.id, { name: 'doc.txt', data: v2 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      nodeId: f.id,
      versionNo: 2,
      size: 40,
      sha256: sha256(v2),
      current: true,
      pinned: false,
      createdBy: editor.userId,
    });
    const listed = await list(viewer.token, f.id);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json().data.map((v: { versionNo: number; current: boolean }) => [v.versionNo, v.current])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(5 + 40);
  });

  it('rollback creates a new version with the old content (same managed file), charged; history stays', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'policy.txt', 'version one');
    await uploadVersion(t, editor.token, f.id, { name: 'policy.txt', data: text(30) });
    const [v1, v2] = await versionsOf(t, f.id);
    const res = await rollback(editor.token, f.id, v1?.id as number);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ versionNo: 3, current: true, sha256: v1?.sha256, size: 11 });
    const all = await versionsOf(t, f.id);
    expect(all.map((v) => v.versionNo)).toEqual([1, 2, 3]);
    expect(all[2]?.fileId).toBe(v1?.fileId);
    expect(await refsOf(t, v1?.fileId as number)).toEqual([`drive_version/${v1?.id}`, `drive_version/${all[2]?.id}`]);
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(11 + 30 + 11);
    const content = await call(t.app, 'GET', `/api/drive/nodes/${f.id}/content`, { token: viewer.token });
    expect(content.body).toBe('version one');
    const acts = await t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, f.id));
    expect(acts.map((a) => a.action)).toContain('version.rollback');
    // the current version: nothing to roll back to
    expectError(await rollback(editor.token, f.id, all[2]?.id as number), 409, 'drive.version_is_current');
    expect(v2).toBeDefined();
  });

  it('the version cap keeps the newest N, releases the bytes and the references of the removed ones', async () => {
    const sp = await teamSpace({ maxVersions: 3 });
    const f = await file(t, demo(), sp.id, null, 'capped.txt', 'v1-');
    const ids = [(await versionsOf(t, f.id))[0]?.id as number];
    for (let i = 2; i <= 5; i++) {
      const res = await uploadVersion(t, editor.token, f.id, { name: 'capped.txt', data: text(10 * i) });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().data.id);
    }
    const left = await versionsOf(t, f.id);
    expect(left.map((v) => v.versionNo)).toEqual([3, 4, 5]);
    expect(left.map((v) => v.id)).toEqual(ids.slice(2));
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(30 + 40 + 50);
    expect(await driveVersionRefs(t, ids.slice(0, 2))).toBe(0);
    expect(await driveVersionRefs(t, ids.slice(2))).toBe(3);
  });

  it('a pinned version survives the cap', async () => {
    const sp = await teamSpace({ maxVersions: 3 });
    const f = await file(t, demo(), sp.id, null, 'pinned.txt', 'v1-keep');
    const [v1] = await versionsOf(t, f.id);
    const res = await pin(editor.token, f.id, v1?.id as number, { pinned: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: v1?.id, pinned: true, current: true });
    const ids: number[] = [v1?.id as number];
    for (let i = 2; i <= 5; i++) {
      const r = await uploadVersion(t, editor.token, f.id, { name: 'pinned.txt', data: text(10 * i) });
      ids.push(r.json().data.id);
    }
    const left = await versionsOf(t, f.id);
    expect(left.map((v) => v.versionNo)).toEqual([1, 4, 5]);
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(7 + 40 + 50);
    // versions 2 and 3 are gone with their references
    expect(await driveVersionRefs(t, [ids[1] as number, ids[2] as number])).toBe(0);
    expect(await driveVersionRefs(t, [ids[0] as number, ids[3] as number, ids[4] as number])).toBe(3);
    // unpinned, it goes with the next version
    await pin(editor.token, f.id, v1?.id as number, { pinned: false });
    await uploadVersion(t, editor.token, f.id, { name: 'pinned.txt', data: text(60) });
    expect((await versionsOf(t, f.id)).map((v) => v.versionNo)).toEqual([4, 5, 6]);
  });
});

describe('version refusals', () => {
  it('refuses bad input naming the field and unknown versions, writing nothing', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'a.txt');
    const g = await file(t, demo(), sp.id, null, 'b.txt');
    const [gv] = await versionsOf(t, g.id);
    const [fv] = await versionsOf(t, f.id);
    const dir = await folder(t, demo(), sp.id, null, 'Folder');
    const before = await driveState(t, sp.id);
    const invalid = 'request.validation_failed';
    expectError(await pin(editor.token, f.id, fv?.id as number, {}), 400, invalid, 'pinned');
    expectError(await pin(editor.token, f.id, fv?.id as number, { pinned: 'yes' }), 400, invalid, 'pinned');
    expectError(await pin(editor.token, f.id, 0, { pinned: true }), 400, invalid, 'versionId');
    expectError(await pin(editor.token, f.id, gv?.id as number, { pinned: true }), 404, 'drive.version_not_found');
    expectError(await rollback(editor.token, f.id, gv?.id as number), 404, 'drive.version_not_found');
    expectError(await list(editor.token, 0), 400, invalid, 'id');
    expectError(await list(editor.token, dir.id), 400, 'drive.not_a_file');
    expectError(await uploadVersion(t, editor.token, dir.id, { name: 'x.txt', data: text() }), 400, 'drive.not_a_file');
    expectError(
      await uploadVersion(t, editor.token, f.id, { name: 'x.exe', data: text() }),
      400,
      'files.blocked_type',
      'file',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
    expect((await versionsOf(t, f.id)).every((v) => !v.pinned)).toBe(true);
  });

  it('a viewer lists but cannot upload, roll back or pin (403 drive.role_too_low)', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'a.txt');
    await uploadVersion(t, editor.token, f.id, { name: 'a.txt', data: text() });
    const [v1] = await versionsOf(t, f.id);
    const before = await driveState(t, sp.id);
    expect((await list(viewer.token, f.id)).statusCode).toBe(200);
    expectError(await uploadVersion(t, viewer.token, f.id, { name: 'a.txt', data: text() }), 403, 'drive.role_too_low');
    expectError(await rollback(viewer.token, f.id, v1?.id as number), 403, 'drive.role_too_low');
    expectError(await pin(viewer.token, f.id, v1?.id as number, { pinned: true }), 403, 'drive.role_too_low');
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('needs the menu permissions (403) and the caller’s tenant (404)', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'a.txt');
    await uploadVersion(t, editor.token, f.id, { name: 'a.txt', data: text() });
    const [v1] = await versionsOf(t, f.id);
    const reader = await driveUser(t, { permissions: ['drive:node:view'] });
    await member(t, demo(), sp.id, reader.userId, 'manager');
    const blind = await driveUser(t, { permissions: ['drive:node:edit'] });
    await member(t, demo(), sp.id, blind.userId, 'manager');
    const before = await driveState(t, sp.id);
    expectError(await list(blind.token, f.id), 403, 'auth.permission_denied');
    expectError(
      await uploadVersion(t, reader.token, f.id, { name: 'a.txt', data: text() }),
      403,
      'auth.permission_denied',
    );
    expectError(await rollback(reader.token, f.id, v1?.id as number), 403, 'auth.permission_denied');
    expectError(await pin(reader.token, f.id, v1?.id as number, { pinned: true }), 403, 'auth.permission_denied');
    expectError(await list(other.adminToken, f.id), 404, 'drive.node_not_found');
    expectError(
      await uploadVersion(t, other.adminToken, f.id, { name: 'a.txt', data: text() }),
      404,
      'drive.node_not_found',
    );
    expectError(await rollback(other.adminToken, f.id, v1?.id as number), 404, 'drive.node_not_found');
    expectError(await pin(other.adminToken, f.id, v1?.id as number, { pinned: true }), 404, 'drive.node_not_found');
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('a lock held by someone else refuses a new version and a rollback (423)', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'locked.txt');
    await uploadVersion(t, editor.token, f.id, { name: 'locked.txt', data: text() });
    const [v1] = await versionsOf(t, f.id);
    await lockBy(t, f.id, owner.userId);
    const before = await driveState(t, sp.id);
    expectError(
      await uploadVersion(t, editor.token, f.id, { name: 'locked.txt', data: text() }),
      423,
      'drive.node_locked',
    );
    expectError(await rollback(editor.token, f.id, v1?.id as number), 423, 'drive.node_locked');
    expect(await driveState(t, sp.id)).toEqual(before);
  });
});
