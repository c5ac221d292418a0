import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveNodes, driveUploadBindings } from '../../src/modules/drive/tables.ts';
import { fileUploadSessions } from '../../src/modules/files/tables.ts';
import { call } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { runTask } from '../open-platform/webhooks-helpers.ts';
import { DRIVE_USER, type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import {
  chunkedUpload,
  completeUpload,
  createDriveTestApp,
  type DriveTestApp,
  driveState,
  elf,
  filesSettings,
  initUpload,
  lockBy,
  member,
  putChunk,
  sha256,
  spaceRow,
  text,
  upload,
  versionsOf,
} from './uploads-helpers.ts';

/**
 * Chunked drive uploads (spec §4.3 rules 1, 3, 5; §7.2): init reserves the quota, chunks go to
 * the files module's session (the drive's policy), complete recomputes the SHA-256 and places
 * the file in one transaction; a mismatch, an abort or an abandoned session gives everything back.
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

const get = (token: string, sessionId: number) => call(t.app, 'GET', `/api/drive/nodes/upload/${sessionId}`, { token });
const abort = (token: string, sessionId: number) =>
  call(t.app, 'DELETE', `/api/drive/nodes/upload/${sessionId}`, { token });

describe('chunked upload', () => {
  it('init reserves, chunks resume in any order, complete creates the file; a repeat answers the same node', async () => {
    const sp = await teamSpace();
    const data = text(2500);
    const init = await initUpload(t, editor.token, {
      spaceId: sp.id,
      name: 'big.txt',
      size: 2500,
      chunkSize: 1024,
      contentHash: sha256(data),
    });
    expect(init.statusCode, init.body).toBe(201);
    const session = init.json().data;
    expect(session).toMatchObject({
      skipped: false,
      spaceId: sp.id,
      parentId: null,
      nodeId: null,
      name: 'big.txt',
      chunkSize: 1024,
      totalChunks: 3,
      receivedChunks: [],
      status: 'open',
    });
    expect(await spaceRow(t, sp.id)).toMatchObject({ usedBytes: 0, reservedBytes: 2500 });

    expect((await putChunk(t, editor.token, session.sessionId, 2, data.subarray(2048))).statusCode).toBe(200);
    expect((await putChunk(t, editor.token, session.sessionId, 0, data.subarray(0, 1024))).statusCode).toBe(200);
    expect((await get(editor.token, session.sessionId)).json().data.receivedChunks).toEqual([0, 2]);
    expectError(await completeUpload(t, editor.token, session.sessionId), 400, 'files.chunks_missing', 'chunks');
    expect((await putChunk(t, editor.token, session.sessionId, 1, data.subarray(1024, 2048))).statusCode).toBe(200);

    const done = await completeUpload(t, editor.token, session.sessionId);
    expect(done.statusCode, done.body).toBe(201);
    const node = done.json().data;
    expect(node).toMatchObject({ name: 'big.txt', size: 2500, sha256: sha256(data), versionNo: 1, skipped: false });
    expect(await spaceRow(t, sp.id)).toMatchObject({ usedBytes: 2500, reservedBytes: 0 });
    expect(
      await t.database.db.select().from(driveUploadBindings).where(eq(driveUploadBindings.spaceId, sp.id)),
    ).toEqual([]);
    expect((await t.storedFiles()).filter((k) => k.startsWith(`uploads/${session.sessionId}/`))).toEqual([]);

    const again = await completeUpload(t, editor.token, session.sessionId);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().data.id).toBe(node.id);
    expect(await spaceRow(t, sp.id)).toMatchObject({ usedBytes: 2500, reservedBytes: 0 });
    expect(await versionsOf(t, node.id)).toHaveLength(1);
  });

  it('a node target (or overwrite) gets a new version; the general file routes never see a drive session', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'data.csv', 'a,b\n');
    const res = await chunkedUpload(
      t,
      editor.token,
      { spaceId: sp.id, nodeId: f.id },
      { name: 'data.csv', data: text(1500) },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ id: f.id, versionNo: 2, size: 1500 });
    const over = await chunkedUpload(
      t,
      editor.token,
      { spaceId: sp.id, conflict: 'overwrite' },
      { name: 'DATA.csv', data: text(1100) },
    );
    expect(over.json().data).toMatchObject({ id: f.id, versionNo: 3 });

    const both = await driveUser(t, { permissions: [...DRIVE_USER, 'system:file:upload'] });
    await member(t, demo(), sp.id, both.userId, 'editor');
    const init = await initUpload(t, both.token, { spaceId: sp.id, name: 'x.txt', size: 2000, chunkSize: 1024 });
    const sessionId = init.json().data.sessionId;
    for (const res of [
      await call(t.app, 'GET', `/api/files/uploads/${sessionId}`, { token: both.token }),
      await call(t.app, 'POST', `/api/files/uploads/${sessionId}/complete`, { token: both.token }),
      await call(t.app, 'DELETE', `/api/files/uploads/${sessionId}`, { token: both.token }),
    ]) {
      expectError(res, 404, 'files.upload_not_found');
    }
    expect((await get(both.token, sessionId)).statusCode).toBe(200);
  });

  it('a hash mismatch on complete aborts: no node, no chunks, the session gone, the reservation back', async () => {
    const sp = await teamSpace();
    const before = await driveState(t, sp.id);
    const data = text(3000);
    const init = await initUpload(t, editor.token, {
      spaceId: sp.id,
      name: 'tampered.txt',
      size: 3000,
      chunkSize: 1024,
      contentHash: sha256(text(3000)),
    });
    const { sessionId } = init.json().data;
    for (let i = 0; i < 3; i++) await putChunk(t, editor.token, sessionId, i, data.subarray(i * 1024, (i + 1) * 1024));
    expect((await spaceRow(t, sp.id)).reservedBytes).toBe(3000);

    const res = await completeUpload(t, editor.token, sessionId);
    expectError(res, 422, 'drive.hash_mismatch', 'contentHash');
    expect(await driveState(t, sp.id)).toEqual(before);
    expect(await t.database.db.select().from(fileUploadSessions).where(eq(fileUploadSessions.id, sessionId))).toEqual(
      [],
    );
    expectError(await get(editor.token, sessionId), 404, 'drive.upload_not_found');
    expectError(await completeUpload(t, editor.token, sessionId), 404, 'drive.upload_not_found');
  });

  it('DELETE aborts: chunks deleted, reservation released, binding gone', async () => {
    const sp = await teamSpace();
    const before = await driveState(t, sp.id);
    const init = await initUpload(t, editor.token, { spaceId: sp.id, name: 'a.txt', size: 2048, chunkSize: 1024 });
    const { sessionId } = init.json().data;
    await putChunk(t, editor.token, sessionId, 0, text(1024));
    const res = await abort(editor.token, sessionId);
    expect(res.statusCode, res.body).toBe(200);
    expect(await driveState(t, sp.id)).toEqual(before);
    expectError(await abort(editor.token, sessionId), 404, 'drive.upload_not_found');
  });

  it('the chunks are checked with the drive policy: an executable is refused, HTML accepted', async () => {
    const sp = await teamSpace();
    const init = await initUpload(t, editor.token, { spaceId: sp.id, name: 'notes.txt', size: 2048, chunkSize: 1024 });
    const { sessionId } = init.json().data;
    expectError(await putChunk(t, editor.token, sessionId, 0, elf().subarray(0, 1024)), 400, 'files.blocked_type');
    expect((await get(editor.token, sessionId)).json().data.receivedChunks).toEqual([]);
    await abort(editor.token, sessionId);

    const html = Buffer.concat([Buffer.from('<!doctype html><html><body>'), Buffer.alloc(1500, 'x')]);
    const res = await chunkedUpload(t, editor.token, { spaceId: sp.id }, { name: 'page.html', data: html });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('refuses bad input naming the field; nothing is reserved or opened', async () => {
    const sp = await teamSpace();
    const elsewhere = await file(t, demo(), (await teamSpace()).id, null, 'elsewhere.txt');
    const before = await driveState(t, sp.id);
    const ok = { spaceId: sp.id, name: 'a.txt', size: 4096, chunkSize: 1024 };
    const invalid = 'request.validation_failed';
    expectError(await initUpload(t, editor.token, { ...ok, name: undefined }), 400, invalid, 'name');
    expectError(await initUpload(t, editor.token, { ...ok, size: 0 }), 400, invalid, 'size');
    expectError(await initUpload(t, editor.token, { ...ok, chunkSize: 10 }), 400, invalid, 'chunkSize');
    expectError(await initUpload(t, editor.token, { ...ok, contentHash: 'abc' }), 400, invalid, 'contentHash');
    expectError(await initUpload(t, editor.token, { ...ok, name: '..' }), 400, invalid, 'name');
    expectError(await initUpload(t, editor.token, { ...ok, spaceId: undefined }), 400, invalid, 'spaceId');
    expectError(await initUpload(t, editor.token, { ...ok, nodeId: elsewhere.id }), 400, invalid, 'spaceId');
    expectError(
      await initUpload(t, editor.token, { ...ok, nodeId: elsewhere.id, parentId: 1 }),
      400,
      invalid,
      'parentId',
    );
    expectError(await initUpload(t, editor.token, { ...ok, name: 'setup.EXE' }), 400, 'files.blocked_type', 'name');
    expectError(await initUpload(t, editor.token, { ...ok, mime: 'not a type' }), 400, invalid, 'mime');
    expectError(
      await initUpload(t, editor.token, { ...ok, size: 20_000_000, chunkSize: 1024 }),
      400,
      invalid,
      'chunkSize',
    );
    await filesSettings(t, { maxSizeMb: 1 });
    try {
      expectError(await initUpload(t, editor.token, { ...ok, size: 2 * 1024 * 1024 }), 413, 'drive.too_large', 'size');
    } finally {
      await filesSettings(t, { maxSizeMb: 1024 });
    }
    expect(await driveState(t, sp.id)).toEqual(before);

    const init = await initUpload(t, editor.token, ok);
    const { sessionId } = init.json().data;
    expectError(await putChunk(t, editor.token, sessionId, 0, text(100)), 400, 'files.chunk_size_mismatch', 'body');
    expectError(await putChunk(t, editor.token, sessionId, 9, text(1024)), 400, invalid, 'index');
    expectError(await completeUpload(t, editor.token, 0), 400, invalid, 'sessionId');
    expect((await get(editor.token, sessionId)).json().data.receivedChunks).toEqual([]);
    await abort(editor.token, sessionId);
  });

  it('conflict=skip with an existing file opens no session; overwrite onto a locked file is 423 at init', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'keep.txt');
    const before = await driveState(t, sp.id);
    const skip = await initUpload(t, editor.token, {
      spaceId: sp.id,
      name: 'keep.txt',
      size: 2000,
      chunkSize: 1024,
      conflict: 'skip',
    });
    expect(skip.statusCode, skip.body).toBe(201);
    expect(skip.json().data).toMatchObject({ skipped: true, node: { id: f.id, name: 'keep.txt' } });
    await lockBy(t, f.id, owner.userId);
    expectError(
      await initUpload(t, editor.token, {
        spaceId: sp.id,
        nodeId: f.id,
        name: 'keep.txt',
        size: 2000,
        chunkSize: 1024,
      }),
      423,
      'drive.node_locked',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('a lock taken during the upload refuses the complete (423); the upload is aborted and released', async () => {
    const sp = await teamSpace();
    const f = await file(t, demo(), sp.id, null, 'busy.txt');
    const before = await driveState(t, sp.id);
    const init = await initUpload(t, editor.token, {
      spaceId: sp.id,
      nodeId: f.id,
      name: 'busy.txt',
      size: 1500,
      chunkSize: 1024,
    });
    const { sessionId } = init.json().data;
    const data = text(1500);
    await putChunk(t, editor.token, sessionId, 0, data.subarray(0, 1024));
    await putChunk(t, editor.token, sessionId, 1, data.subarray(1024));
    await lockBy(t, f.id, owner.userId);
    expectError(await completeUpload(t, editor.token, sessionId), 423, 'drive.node_locked');
    expect(await driveState(t, sp.id)).toEqual(before);
    expect(await versionsOf(t, f.id)).toHaveLength(1);
  });
  it('a target folder deleted during the upload: complete answers 404 and gives everything back', async () => {
    const sp = await teamSpace();
    const dir = await folder(t, demo(), sp.id, null, 'Inbox');
    const before = await driveState(t, sp.id);
    const data = text(1200);
    const init = await initUpload(t, editor.token, {
      spaceId: sp.id,
      parentId: dir.id,
      name: 'late.txt',
      size: 1200,
      chunkSize: 1024,
    });
    const { sessionId } = init.json().data;
    await putChunk(t, editor.token, sessionId, 0, data.subarray(0, 1024));
    await putChunk(t, editor.token, sessionId, 1, data.subarray(1024));
    await t.database.db.update(driveNodes).set({ deletedAt: new Date() }).where(eq(driveNodes.id, dir.id));
    expectError(await completeUpload(t, editor.token, sessionId), 404, 'drive.node_not_found');
    expect(await driveState(t, sp.id)).toEqual(before);
  });
});

describe('who may upload in chunks', () => {
  it('needs drive:node:edit; nothing reserved', async () => {
    const sp = await teamSpace();
    const reader = await driveUser(t, { permissions: ['drive:node:view'] });
    await member(t, demo(), sp.id, reader.userId, 'manager');
    const before = await driveState(t, sp.id);
    expectError(
      await initUpload(t, reader.token, { spaceId: sp.id, name: 'a.txt', size: 2000, chunkSize: 1024 }),
      403,
      'auth.permission_denied',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
    // every session route needs it too
    const { sessionId } = (
      await initUpload(t, editor.token, { spaceId: sp.id, name: 'b.txt', size: 2000, chunkSize: 1024 })
    ).json().data;
    for (const res of [
      await get(reader.token, sessionId),
      await putChunk(t, reader.token, sessionId, 0, text(1024)),
      await completeUpload(t, reader.token, sessionId),
      await abort(reader.token, sessionId),
    ]) {
      expectError(res, 403, 'auth.permission_denied');
    }
    expect((await get(editor.token, sessionId)).json().data.receivedChunks).toEqual([]);
    await abort(editor.token, sessionId);
  });

  it('a viewer cannot init (403 drive.role_too_low)', async () => {
    const sp = await teamSpace();
    const before = await driveState(t, sp.id);
    expectError(
      await initUpload(t, viewer.token, { spaceId: sp.id, name: 'a.txt', size: 2000, chunkSize: 1024 }),
      403,
      'drive.role_too_low',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('another tenant (or another user) cannot see or touch a session: 404, and the upload goes on', async () => {
    const sp = await teamSpace();
    expectError(
      await initUpload(t, other.adminToken, { spaceId: sp.id, name: 'a.txt', size: 2000, chunkSize: 1024 }),
      404,
      'drive.space_not_found',
    );
    const data = text(2000);
    const init = await initUpload(t, editor.token, { spaceId: sp.id, name: 'mine.txt', size: 2000, chunkSize: 1024 });
    const { sessionId } = init.json().data;
    for (const token of [other.adminToken, owner.token]) {
      expectError(await get(token, sessionId), 404, 'drive.upload_not_found');
      expectError(await putChunk(t, token, sessionId, 0, data.subarray(0, 1024)), 404, 'drive.upload_not_found');
      expectError(await completeUpload(t, token, sessionId), 404, 'drive.upload_not_found');
      expectError(await abort(token, sessionId), 404, 'drive.upload_not_found');
    }
    expect((await get(editor.token, sessionId)).json().data.receivedChunks).toEqual([]);
    expect((await spaceRow(t, sp.id)).reservedBytes).toBe(2000);
    await putChunk(t, editor.token, sessionId, 0, data.subarray(0, 1024));
    await putChunk(t, editor.token, sessionId, 1, data.subarray(1024));
    expect((await completeUpload(t, editor.token, sessionId)).statusCode).toBe(201);
  });
});

describe('reservations', () => {
  it('init past the quota is a 413 and leaves no session', async () => {
    const sp = await teamSpace({ quotaBytes: 1000 });
    const before = await driveState(t, sp.id);
    expectError(
      await initUpload(t, editor.token, { spaceId: sp.id, name: 'a.txt', size: 1001, chunkSize: 1024 }),
      413,
      'drive.quota_exceeded',
    );
    expect(await driveState(t, sp.id)).toEqual(before);
  });

  it('a chunked init racing a simple upload for the same last bytes: exactly one gets them', async () => {
    for (let round = 0; round < 3; round++) {
      const sp = await teamSpace({ quotaBytes: 1500 });
      const [init, simple] = await Promise.all([
        initUpload(t, editor.token, { spaceId: sp.id, name: 'chunked.txt', size: 1000, chunkSize: 1024 }),
        upload(t, owner.token, { spaceId: sp.id }, { name: 'simple.txt', data: text(1000) }),
      ]);
      expect([init.statusCode, simple.statusCode].sort(), `${init.body}\n${simple.body}`).toEqual([201, 413]);
      const row = await spaceRow(t, sp.id);
      expect(row.usedBytes + row.reservedBytes).toBe(1000);
      if (init.statusCode === 201) {
        expect(row).toMatchObject({ usedBytes: 0, reservedBytes: 1000 });
        await abort(editor.token, init.json().data.sessionId);
      } else {
        expect(row).toMatchObject({ usedBytes: 1000, reservedBytes: 0 });
        expect(
          await t.database.db.select().from(fileUploadSessions).where(eq(fileUploadSessions.name, 'chunked.txt')),
        ).toHaveLength(0);
      }
    }
  });

  it('the expiry task releases the reservation of sessions that expired, once, and spares live ones', async () => {
    const sp = await teamSpace();
    const stale = (
      await initUpload(t, editor.token, { spaceId: sp.id, name: 'old.txt', size: 3000, chunkSize: 1024 })
    ).json().data.sessionId;
    const live = (
      await initUpload(t, editor.token, { spaceId: sp.id, name: 'new.txt', size: 2000, chunkSize: 1024 })
    ).json().data.sessionId;
    expect((await spaceRow(t, sp.id)).reservedBytes).toBe(5000);
    await t.database.db
      .update(fileUploadSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(fileUploadSessions.id, stale));
    expect(await runTask(t, 'drive.expireUploadBindings')).toEqual({ released: 1 });
    expect(await runTask(t, 'drive.expireUploadBindings')).toEqual({ released: 0 });
    expect((await spaceRow(t, sp.id)).reservedBytes).toBe(2000);
    expectError(await get(editor.token, stale), 404, 'drive.upload_not_found');
    expect((await get(editor.token, live)).statusCode).toBe(200);
    await abort(editor.token, live);
    expect((await spaceRow(t, sp.id)).reservedBytes).toBe(0);
    const nodes = await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, sp.id));
    expect(nodes).toEqual([]);
  });
});
