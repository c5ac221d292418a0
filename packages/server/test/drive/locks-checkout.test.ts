import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { file, folder, space } from './drive-fixtures.ts';
import { activitiesOf, del, node, ok, snapshot, unique, type World, world } from './recycle-fixtures.ts';

/** Check-out locks (spec §3.5), on a clock the test moves. */
let t: TestApp;
let w: World;
let other: TenantFixture;
let now = new Date();
const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};
beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  w = await world(t);
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const MIN = 60_000;
const fl = (name: string, parent: Parameters<typeof file>[3] = null) =>
  file(t, w.tenantId, w.space.id, parent, name, unique(name));
const lock = (id: number, user: { token: string }, body: object = {}) =>
  call(t.app, 'POST', `/api/drive/nodes/${id}/lock`, { token: user.token, body });
const unlock = (id: number, user: { token: string }) =>
  call(t.app, 'DELETE', `/api/drive/nodes/${id}/lock`, { token: user.token });
const status = (id: number, user: { token: string }) =>
  call(t.app, 'GET', `/api/drive/nodes/${id}/lock`, { token: user.token });

describe('check-out locks', () => {
  it('an editor takes, renews and releases a lock; everyone who can see the file sees it', async () => {
    const x = await fl('spec.docx');
    expect(await ok(await status(x.id, w.viewer))).toEqual({
      locked: false,
      userId: null,
      userName: null,
      lockedAt: null,
      expiresAt: null,
    });
    const taken = now;
    expect(await ok(await lock(x.id, w.editor))).toEqual({
      locked: true,
      userId: w.editor.userId,
      userName: w.editor.username,
      lockedAt: taken.toISOString(),
      expiresAt: new Date(taken.getTime() + 60 * MIN).toISOString(),
    });
    expect(await node(t, x.id)).toMatchObject({ lockUserId: w.editor.userId });
    expect(await ok(await status(x.id, w.viewer))).toMatchObject({ locked: true, userName: w.editor.username });

    advance(10 * MIN);
    expect(await ok(await lock(x.id, w.editor, { minutes: 120 }))).toMatchObject({
      lockedAt: taken.toISOString(),
      expiresAt: new Date(now.getTime() + 120 * MIN).toISOString(),
    });
    expect(await ok(await unlock(x.id, w.editor))).toEqual({ ok: true });
    expect(await node(t, x.id)).toMatchObject({ lockUserId: null, lockedAt: null, lockExpiresAt: null });
    expect((await activitiesOf(t, x.id)).map((a) => [a.action, a.actorUserId, a.detail.renewed])).toEqual([
      ['lock.take', w.editor.userId, false],
      ['lock.take', w.editor.userId, true],
      ['lock.release', w.editor.userId, undefined],
    ]);
    // nothing to release: nothing happens
    expect(await ok(await unlock(x.id, w.editor))).toEqual({ ok: true });
    expect(await activitiesOf(t, x.id)).toHaveLength(3);
  });

  it("another user's live lock: 423 naming the holder for their lock and their delete; the holder's own delete works", async () => {
    const a = await folder(t, w.tenantId, w.space.id, null, 'Shared');
    const x = await fl('locked.xlsx', a);
    await ok(await lock(x.id, w.editor));

    const res = await lock(x.id, w.editor2);
    expectError(res, 423, 'drive.node_locked');
    expect(res.json().message).toContain(w.editor.username);
    expect(res.json().lockedBy).toBe(w.editor.username);
    const before = await snapshot(t);
    for (const id of [x.id, a.id]) {
      const d = await del(t, w.editor2, [id]);
      expectError(d, 423, 'drive.node_locked');
      expect(d.json().message).toContain(w.editor.username);
    }
    expect(await snapshot(t)).toEqual(before);
    expect(await node(t, x.id)).toMatchObject({ deletedAt: null, lockUserId: w.editor.userId });

    expect(await ok(await del(t, w.editor, [a.id]))).toEqual({ deleted: 1 });
    expect(await node(t, x.id)).toMatchObject({ trashRootId: a.id });
  });

  it('an expired lock is no lock', async () => {
    const x = await fl('short.txt');
    await ok(await lock(x.id, w.editor, { minutes: 1 }));
    advance(MIN);
    expect(await ok(await status(x.id, w.editor2))).toMatchObject({ locked: false, userId: null });
    expect(await ok(await del(t, w.editor2, [x.id]))).toEqual({ deleted: 1 });

    const y = await fl('short2.txt');
    await ok(await lock(y.id, w.editor, { minutes: 1 }));
    advance(2 * MIN);
    expect(await ok(await lock(y.id, w.editor2))).toMatchObject({ locked: true, userId: w.editor2.userId });
    // the former holder cannot release what is no longer theirs
    expectError(await unlock(y.id, w.editor), 403, 'drive.not_lock_holder');
  });

  it('only the holder releases; a manager breaks the lock (lock.break)', async () => {
    const x = await fl('break.txt');
    await ok(await lock(x.id, w.editor));
    expectError(await unlock(x.id, w.editor2), 403, 'drive.not_lock_holder');
    expectError(await unlock(x.id, w.viewer), 403, 'drive.not_lock_holder');
    expect(await node(t, x.id)).toMatchObject({ lockUserId: w.editor.userId });
    expect(await ok(await unlock(x.id, w.owner))).toEqual({ ok: true });
    expect(await node(t, x.id)).toMatchObject({ lockUserId: null });
    const [, broken] = await activitiesOf(t, x.id);
    expect(broken).toMatchObject({
      action: 'lock.break',
      actorUserId: w.owner.userId,
      detail: { holderId: w.editor.userId },
    });
  });

  it('two users locking at once: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const x = await fl(`race-${round}.txt`);
      const [a, b] = await Promise.all([lock(x.id, w.editor), lock(x.id, w.editor2)]);
      expect([a.statusCode, b.statusCode].sort()).toEqual([200, 423]);
      const winner = a.statusCode === 200 ? w.editor : w.editor2;
      expect(await node(t, x.id)).toMatchObject({ lockUserId: winner.userId });
      expect((await activitiesOf(t, x.id)).map((e) => e.action)).toEqual(['lock.take']);
    }
  });

  it('files only: a folder is 400 drive.not_a_file', async () => {
    const a = await folder(t, w.tenantId, w.space.id, null, 'NoLock');
    expectError(await lock(a.id, w.editor), 400, 'drive.not_a_file');
    expect(await node(t, a.id)).toMatchObject({ lockUserId: null });
  });

  it('bad input is a 400 naming the field, and writes nothing', async () => {
    const x = await fl('input.txt');
    const before = await snapshot(t);
    for (const [url, body, field] of [
      [`/api/drive/nodes/${x.id}/lock`, { minutes: 0 }, 'minutes'],
      [`/api/drive/nodes/${x.id}/lock`, { minutes: 1441 }, 'minutes'],
      [`/api/drive/nodes/${x.id}/lock`, { minutes: 'long' }, 'minutes'],
      [`/api/drive/nodes/${x.id}/lock`, { minutes: 1.5 }, 'minutes'],
      ['/api/drive/nodes/abc/lock', {}, 'id'],
      ['/api/drive/nodes/0/lock', {}, 'id'],
    ] as [string, object, string][]) {
      const res = await call(t.app, 'POST', url, { token: w.editor.token, body });
      expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expectError(await status(-1, w.editor), 400, 'request.validation_failed', 'id');
    expectError(await unlock(-1, w.editor), 400, 'request.validation_failed', 'id');
    expect(await snapshot(t)).toEqual(before);
  });

  it('needs the menu permission (403 auth.permission_denied)', async () => {
    const x = await fl('perm.txt');
    await ok(await lock(x.id, w.editor));
    const before = await snapshot(t);
    expectError(await lock(x.id, w.viewOnly), 403, 'auth.permission_denied');
    expectError(await unlock(x.id, w.viewOnly), 403, 'auth.permission_denied');
    expectError(await status(x.id, w.noPerm), 403, 'auth.permission_denied');
    expect(await snapshot(t)).toEqual(before);
    expect((await status(x.id, w.viewOnly)).statusCode).toBe(200);
  });

  it('the role matrix: a viewer cannot lock (403), a user with no role does not see the file (404)', async () => {
    const x = await fl('roles.txt');
    const before = await snapshot(t);
    expectError(await lock(x.id, w.viewer), 403, 'drive.role_too_low');
    expectError(await lock(x.id, w.stranger), 404, 'drive.node_not_found');
    expectError(await status(x.id, w.stranger), 404, 'drive.node_not_found');
    expectError(await unlock(x.id, w.stranger), 404, 'drive.node_not_found');
    expect(await snapshot(t)).toEqual(before);
  });

  it("another tenant's file is not found (404) and its lock is untouched", async () => {
    const x = await fl('tenant.txt');
    await ok(await lock(x.id, w.editor));
    const token = { token: other.adminToken };
    expectError(await status(x.id, token), 404, 'drive.node_not_found');
    expectError(await lock(x.id, token), 404, 'drive.node_not_found');
    expectError(await unlock(x.id, token), 404, 'drive.node_not_found');
    expect(await node(t, x.id)).toMatchObject({ lockUserId: w.editor.userId });
  });

  it('an archived space takes no new lock (409)', async () => {
    const sp = await space(t, w.tenantId, { ownerUserId: w.owner.userId });
    const x = await file(t, w.tenantId, sp.id, null, 'old.txt', unique('archived'));
    await t.database.db.update(driveSpaces).set({ archivedAt: now }).where(eq(driveSpaces.id, sp.id));
    expectError(await lock(x.id, w.owner), 409, 'drive.space_archived');
  });
});
