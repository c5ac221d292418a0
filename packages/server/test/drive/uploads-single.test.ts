import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities, driveNodes } from '../../src/modules/drive/tables.ts';
import { managedFiles } from '../../src/modules/files/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { multipartBody } from '../files/files-helpers.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import {
  createDriveTestApp,
  type DriveTestApp,
  driveSettings,
  driveState,
  elf,
  filesSettings,
  lockBy,
  member,
  nodeRow,
  pe,
  refsOf,
  sha256,
  spaceRow,
  text,
  upload,
  versionsOf,
} from './uploads-helpers.ts';

/**
 * POST /api/drive/nodes/upload (spec §4.3 rules 1, 3, 5): one request, the server's hash, the
 * conflict policies, the drive's guards (blocked extensions, executable headers, no MIME
 * allow-list), the quota charged atomically, locks, and nothing left behind by a refusal.
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

/** a team space the owner manages, with an editor and a viewer member */
async function teamSpace(opts: Parameters<typeof space>[2] = {}) {
  const sp = await space(t, demo(), { ownerUserId: owner.userId, ...opts });
  await member(t, demo(), sp.id, editor.userId, 'editor');
  await member(t, demo(), sp.id, viewer.userId, 'viewer');
  return sp;
}

describe('single-request upload', () => {
  it('stores a restricted managed file as version 1 of a new node, charged to the space', async () => {
    const sp = await teamSpace();
    const data = text(300);
    const res = await upload(t, editor.token, { spaceId: sp.id }, { name: 'notes.txt', data });
    expect(res.statusCode, res.body).toBe(201);
    const node = res.json().data;
    expect(node).toMatchObject({
      spaceId: sp.id,
      parentId: null,
      type: 'file',
      name: 'notes.txt',
      size: 300,
      mime: 'text/plain',
      sha256: sha256(data),
      versionNo: 1,
      createdBy: editor.userId,
      skipped: false,
    });
    const [version] = await versionsOf(t, node.id);
    expect(version).toMatchObject({ versionNo: 1, size: 300, sha256: sha256(data) });
    expect(node.currentVersionId).toBe(version?.id);
    // the drive version is the file's only owner; the upload's own reference is gone
    expect(await refsOf(t, version?.fileId as number)).toEqual([`drive_version/${version?.id}`]);
    expect((await rowById(t, managedFiles, version?.fileId as number))?.visibility).toBe('restricted');
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(300);
    const acts = await t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, node.id));
    expect(acts.map((a) => [a.action, a.actorUserId])).toEqual([['node.upload', editor.userId]]);
  });

  it('an empty file is stored too (size 0, the hash of nothing)', async () => {
    const sp = await teamSpace();
    const res = await upload(t, editor.token, { spaceId: sp.id }, { name: 'empty.txt', data: Buffer.alloc(0) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ size: 0, sha256: sha256(Buffer.alloc(0)), versionNo: 1 });
  });

  it('uploads into a folder given by parentId', async () => {
    const sp = await teamSpace();
    const dir = await folder(t, demo(), sp.id, null, 'Reports');
    const res = await upload(t, editor.token, { spaceId: sp.id, parentId: dir.id }, { name: 'q1.txt', data: text() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ parentId: dir.id, name: 'q1.txt' });
    expect((await nodeRow(t, res.json().data.id)).ancestorIds).toEqual([dir.id]);
  });

  it('keepBoth (default) names the second "a (1).txt"; overwrite makes version 2; skip stores nothing', async () => {
    const sp = await teamSpace();
    const first = (await upload(t, editor.token, { spaceId: sp.id }, { name: 'a.txt', data: text(10) })).json().data;
    const both = await upload(t, editor.token, { spaceId: sp.id }, { name: 'A.txt', data: text(20) });
    expect(both.statusCode, both.body).toBe(201);
    expect(both.json().data).toMatchObject({ name: 'A (1).txt', versionNo: 1 });
    expect(both.json().data.id).not.toBe(first.id);

    const v2 = text(30);
    const over = await upload(t, editor.token, { spaceId: sp.id, conflict: 'overwrite' }, { name: 'a.txt', data: v2 });
    expect(over.statusCode, over.body).toBe(201);
    expect(over.json().data).toMatchObject({ id: first.id, versionNo: 2, size: 30, sha256: sha256(v2) });
    expect((await versionsOf(t, first.id)).map((v) => v.versionNo)).toEqual([1, 2]);
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(10 + 20 + 30);

    const before = await driveState(t, sp.id);
    const skip = await upload(t, editor.token, { spaceId: sp.id, conflict: 'skip' }, { name: 'a.txt', data: text(40) });
    expect(skip.statusCode, skip.body).toBe(201);
    expect(skip.json().data).toMatchObject({ id: first.id, versionNo: 2, skipped: true });
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('nodeId uploads the next version of that file; overwrite onto a folder is a 409', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'plan.txt');
    const res = await upload(t, editor.token, { nodeId: f.id }, { name: 'whatever.txt', data: text(50) });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ id: f.id, name: 'plan.txt', versionNo: 2 });

    await folder(t, demo(), sp.id, null, 'Drafts');
    const before = await driveState(t, sp.id);
    expectError(
      await upload(t, editor.token, { spaceId: sp.id, conflict: 'overwrite' }, { name: 'drafts', data: text() }),
      409,
      'drive.name_taken',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'x.txt');
    const before = await driveState(t, sp.id);
    const data = text();
    const invalid = 'request.validation_failed';
    expectError(await upload(t, editor.token, {}, { name: 'a.txt', data }), 400, invalid, 'spaceId');
    expectError(
      await upload(t, editor.token, { spaceId: 'x' as never }, { name: 'a.txt', data }),
      400,
      invalid,
      'spaceId',
    );
    expectError(
      await upload(t, editor.token, { spaceId: sp.id, conflict: 'replace' }, { name: 'a.txt', data }),
      400,
      invalid,
      'conflict',
    );
    expectError(
      await upload(t, editor.token, { spaceId: sp.id, parentId: f.id }, { name: 'a.txt', data }),
      400,
      'drive.not_a_folder',
      'parentId',
    );
    expectError(
      await upload(t, editor.token, { nodeId: f.id, parentId: f.id }, { name: 'a.txt', data }),
      400,
      invalid,
      'parentId',
    );
    expectError(await upload(t, editor.token, { spaceId: sp.id }, { name: '..', data }), 400, invalid, 'file');
    const form = multipartBody([{ field: 'note', value: 'no file here' }]);
    const noFile = await t.app.inject({
      method: 'POST',
      url: `/api/drive/nodes/upload?spaceId=${sp.id}`,
      payload: form.payload,
      headers: { ...form.headers, authorization: `Bearer ${editor.token}` },
    });
    expectError(noFile, 400, invalid, 'file');
    const json = await t.app.inject({
      method: 'POST',
      url: `/api/drive/nodes/upload?spaceId=${sp.id}`,
      payload: { name: 'a.txt' },
      headers: { authorization: `Bearer ${editor.token}` },
    });
    expect(json.statusCode).toBe(415);
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('sends a file above files.chunkThresholdMb to the chunked upload (413), writing nothing', async () => {
    const sp = await teamSpace();
    await filesSettings(t, { chunkThresholdMb: 1 });
    try {
      const before = await driveState(t, sp.id);
      const big = Buffer.alloc(1024 * 1024 + 10, 'a');
      expectError(
        await upload(t, editor.token, { spaceId: sp.id }, { name: 'big.txt', data: big }),
        413,
        'drive.use_chunked_upload',
        'file',
      );
      expect(await driveState(t, sp.id)).toEqual(before);
    } finally {
      await filesSettings(t, { chunkThresholdMb: 5 });
    }
  });
});

describe('upload guards (§4.3 rule 5)', () => {
  it('refuses a blocked extension in any case and with a leading dot in settings, before reading the body', async () => {
    const sp = await teamSpace();
    await driveSettings(t, { blockedExtensions: ['.exe', 'tar.gz'] });
    try {
      const before = await driveState(t, sp.id);
      for (const name of ['EVIL.EXE', 'invoice.pdf.exe', 'backup.TAR.GZ']) {
        expectError(
          await upload(t, editor.token, { spaceId: sp.id }, { name, data: text() }),
          400,
          'files.blocked_type',
          'file',
        );
      }
      expect(await driveState(t, sp.id)).toEqual(before);
      // .sh is blocked by default, not by this tenant's list
      const sh = await upload(t, editor.token, { spaceId: sp.id }, { name: 'notes.sh', data: text() });
      expect(sh.statusCode, sh.body).toBe(201);
    } finally {
      await driveSettings(t, {
        blockedExtensions: ['exe', 'dll', 'bat', 'cmd', 'com', 'scr', 'msi', 'ps1', 'vbs', 'js', 'jar', 'sh'],
      });
    }
  });

  it('refuses executable content under any name (ELF as .txt, PE as .pdf); leaves nothing referenced', async () => {
    const sp = await teamSpace();
    const before = await driveState(t, sp.id);
    for (const [name, data] of [
      ['readme.txt', elf()],
      ['report.pdf', pe()],
    ] as const) {
      expectError(await upload(t, editor.token, { spaceId: sp.id }, { name, data }), 400, 'files.blocked_type', 'file');
    }
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('accepts an HTML file: the general MIME allow-list does not apply to the drive', async () => {
    const sp = await teamSpace();
    const res = await upload(
      t,
      editor.token,
      { spaceId: sp.id },
      { name: 'page.html', data: Buffer.from('<html><script>alert(1)</script></html>'), contentType: 'text/html' },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.mime).toBe('text/html');
  });
});

describe('who may upload', () => {
  it('needs drive:node:edit (403 auth.permission_denied), writing nothing', async () => {
    const sp = await teamSpace();
    const reader = await driveUser(t, { permissions: ['drive:node:view', 'drive:space:view'] });
    await member(t, demo(), sp.id, reader.userId, 'manager');
    const before = await driveState(t, sp.id);
    expectError(
      await upload(t, reader.token, { spaceId: sp.id }, { name: 'a.txt', data: text() }),
      403,
      'auth.permission_denied',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('needs the editor role: a viewer gets 403 drive.role_too_low, on the root, a folder or a file', async () => {
    const sp = await teamSpace();
    const dir = await folder(t, demo(), sp.id, null, 'Team');
    const f = await file(t, demo(), sp.id, null, 'shared.txt');
    const before = await driveState(t, sp.id);
    const data = text();
    for (const q of [{ spaceId: sp.id }, { spaceId: sp.id, parentId: dir.id }, { nodeId: f.id }]) {
      expectError(await upload(t, viewer.token, q, { name: 'a.txt', data }), 403, 'drive.role_too_low');
    }
    // overwrite needs the editor role on the file too: a grant-less sibling only holds the name
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it("answers 404 for another tenant's space, folder or file, and changes nothing there", async () => {
    const sp = await teamSpace();
    const dir = await folder(t, demo(), sp.id, null, 'Private');
    const f = await file(t, demo(), sp.id, null, 'mine.txt');
    const before = await driveState(t, sp.id);
    const data = text();
    expectError(
      await upload(t, other.adminToken, { spaceId: sp.id }, { name: 'a.txt', data }),
      404,
      'drive.space_not_found',
    );
    expectError(
      await upload(t, other.adminToken, { spaceId: sp.id, parentId: dir.id }, { name: 'a.txt', data }),
      404,
      'drive.node_not_found',
    );
    expectError(
      await upload(t, other.adminToken, { nodeId: f.id }, { name: 'a.txt', data }),
      404,
      'drive.node_not_found',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });
});

describe('locks', () => {
  it('a lock held by another user refuses a new version with 423; the holder may upload', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'contract.txt');
    await lockBy(t, f.id, owner.userId);
    const before = await driveState(t, sp.id);
    const res = await upload(t, editor.token, { nodeId: f.id }, { name: 'contract.txt', data: text() });
    expectError(res, 423, 'drive.node_locked');
    expect(res.json().lockedBy).toBe(owner.username);
    expectError(
      await upload(t, editor.token, { spaceId: sp.id, conflict: 'overwrite' }, { name: 'contract.txt', data: text() }),
      423,
      'drive.node_locked',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
    const mine = await upload(t, owner.token, { nodeId: f.id }, { name: 'contract.txt', data: text() });
    expect(mine.statusCode, mine.body).toBe(201);
  });

  it('a lock taken while the bytes are being stored still refuses the version; the stored file is dropped', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'live.txt');
    const before = await driveState(t, sp.id);
    const files = t.app.files;
    const store = files.store;
    let storedId = 0;
    files.store = async (...args) => {
      const stored = await store(...args);
      storedId = stored.id;
      await lockBy(t, f.id, owner.userId); // between the bytes and the transaction
      return stored;
    };
    try {
      expectError(
        await upload(t, editor.token, { nodeId: f.id }, { name: 'live.txt', data: text(500) }),
        423,
        'drive.node_locked',
      );
    } finally {
      files.store = store;
    }
    expect(storedId).toBeGreaterThan(0);
    // no reference is left: the object is an orphan the collector deletes
    expect(await refsOf(t, storedId)).toEqual([]);
    const after = await driveState(t, sp.id);
    expect({ ...after, managedFiles: before.managedFiles }).toEqual(before);
  });
});

describe('quota (§4.3 rule 5, §8)', () => {
  it('refuses an upload past the quota with 413 drive.quota_exceeded and leaves nothing referenced', async () => {
    const sp = await teamSpace({ quotaBytes: 100 });
    const before = await driveState(t, sp.id);
    const res = await upload(t, editor.token, { spaceId: sp.id }, { name: 'big.txt', data: text(101) });
    expectError(res, 413, 'drive.quota_exceeded');
    const after = await driveState(t, sp.id);
    expect({ ...after, managedFiles: before.managedFiles }).toEqual(before);
    const [f] = await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, sp.id));
    expect(f).toBeUndefined();
  });

  it('two uploads racing for the last bytes: exactly one wins, used_bytes is exactly its size', async () => {
    for (let round = 0; round < 3; round++) {
      const sp = await teamSpace({ quotaBytes: 150 });
      const results = await Promise.all([
        upload(t, editor.token, { spaceId: sp.id }, { name: 'one.txt', data: text(100) }),
        upload(t, owner.token, { spaceId: sp.id }, { name: 'two.txt', data: text(100) }),
      ]);
      const codes = results.map((r) => r.statusCode).sort();
      expect(codes, results.map((r) => r.body).join('\n')).toEqual([201, 413]);
      expect(await spaceRow(t, sp.id)).toMatchObject({ usedBytes: 100, reservedBytes: 0 });
      const nodes = await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, sp.id));
      expect(nodes).toHaveLength(1);
    }
  });

  it('warns the space managers once when usage crosses quotaWarningPercent, again after falling below', async () => {
    const sp = await teamSpace({ quotaBytes: 1000, maxVersions: 1 });
    const warnings = async () =>
      (
        await t.database.db
          .select()
          .from(notificationOutbox)
          .where(eq(notificationOutbox.eventKey, 'drive.quota.warning'))
      ).filter((r) => r.input.link === `/drive?space=${sp.id}`);
    const a = (await upload(t, editor.token, { spaceId: sp.id }, { name: 'a.bin', data: text(900) })).json().data;
    let sent = await warnings();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.input.recipients).toEqual([{ type: 'user', id: owner.userId }]);
    expect(sent[0]?.input.variables).toMatchObject({ percent: 90 });
    // a second crossing in a row: no second warning
    await upload(t, editor.token, { spaceId: sp.id }, { name: 'b.bin', data: text(10) });
    expect(await warnings()).toHaveLength(1);
    // below the threshold (the cap of 1 version releases the 900 bytes), then across it again
    await upload(t, editor.token, { nodeId: a.id }, { name: 'a.bin', data: text(50) });
    expect((await spaceRow(t, sp.id)).usedBytes).toBe(60);
    expect((await spaceRow(t, sp.id)).quotaWarnedAt).toBeNull();
    await upload(t, editor.token, { nodeId: a.id }, { name: 'a.bin', data: text(900) });
    sent = await warnings();
    expect(sent).toHaveLength(2);
  });
});
