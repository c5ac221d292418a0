import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveFileVersions, driveNodes, driveSpaces } from '../../src/modules/drive/tables.ts';
import { fileObjects, fileRefs, managedFiles } from '../../src/modules/files/tables.ts';
import { createFilesTestApp, type FilesTestApp } from '../files/files-helpers.ts';
import { call } from '../helpers/app.ts';
import { expectError, rowById } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { driveUser, file, folder, space } from './drive-fixtures.ts';
import {
  activitiesOf,
  bin,
  del,
  node,
  ok,
  purge,
  restore,
  snapshot,
  tree,
  unique,
  usedBytes,
  type World,
  world,
} from './recycle-fixtures.ts';

/** Delete to the recycle bin, its list, restore, purge and empty (spec §3.5), against real storage. */
let t: FilesTestApp;
let w: World;
let other: TenantFixture;
beforeAll(async () => {
  t = await createFilesTestApp();
  w = await world(t);
  other = await createTenant(t);
});
afterAll(async () => t?.close());

const f = (parent: Parameters<typeof folder>[3], name: string) => folder(t, w.tenantId, w.space.id, parent, name);
const fl = (parent: Parameters<typeof file>[3], name: string, content: string | Buffer = unique(name)) =>
  file(t, w.tenantId, w.space.id, parent, name, content);
const ids = (list: { id: number }[]) => list.map((x) => x.id);
type Item = { id: number; [k: string]: unknown };
const binItems = async (user = w.owner) =>
  ((await ok(await bin(t, user, w.space.id, '&pageSize=200'))) as { list: Item[] }).list;

describe('delete to the recycle bin', () => {
  it('moves a folder and its live subtree to the bin; the bin lists the root only; restore brings it back', async () => {
    const a = await f(null, 'Projects');
    const b = await f(a, 'Drafts');
    const f1 = await fl(a, 'plan.txt', unique('plan', 100));
    const f2 = await fl(b, 'draft.txt', unique('draft', 40));
    const early = await fl(a, 'old.txt', unique('old', 7));
    expect(await ok(await del(t, w.editor, [early.id]))).toEqual({ deleted: 1 });

    expect(await ok(await del(t, w.editor, [a.id]))).toEqual({ deleted: 1 });
    for (const n of [a, b, f1, f2]) {
      expect(await node(t, n.id)).toMatchObject({ trashRootId: a.id, deletedBy: w.editor.userId });
      expect((await node(t, n.id))?.deletedAt).not.toBeNull();
    }
    // deleted earlier: its own bin entry still
    expect(await node(t, early.id)).toMatchObject({ trashRootId: early.id });
    expect((await activitiesOf(t, a.id)).map((x) => x.action)).toEqual(['node.delete']);
    expect((await activitiesOf(t, a.id))[0]?.detail).toMatchObject({ name: 'Projects', nodes: 4 });

    const list = await binItems(w.editor);
    const mine = list.filter((x) => [a.id, early.id, b.id, f1.id, f2.id].includes(x.id));
    expect(ids(mine)).toEqual([a.id, early.id]);
    const [aItem, earlyItem] = mine;
    expect(aItem).toMatchObject({
      name: 'Projects',
      type: 'folder',
      size: 140,
      deletedBy: w.editor.userId,
      deletedByName: w.editor.username,
      originalParentId: null,
      originalPath: '/',
      restoresToOriginal: true,
      held: false,
    });
    expect(Date.parse(aItem?.expiresAt as string) - Date.parse(aItem?.deletedAt as string)).toBe(30 * 86400_000);
    expect(earlyItem).toMatchObject({
      name: 'old.txt',
      type: 'file',
      size: 7,
      originalParentId: a.id,
      originalPath: '/Projects',
      restoresToOriginal: false,
    });

    const res = await ok(await restore(t, w.editor, [a.id]));
    expect(res).toEqual({ restored: [{ id: a.id, parentId: null, name: 'Projects' }] });
    for (const n of [a, b, f1, f2]) {
      expect(await node(t, n.id)).toMatchObject({ deletedAt: null, deletedBy: null, trashRootId: null });
    }
    expect(await node(t, b.id)).toMatchObject({ parentId: a.id, ancestorIds: [a.id] });
    expect(await node(t, f2.id)).toMatchObject({ parentId: b.id, ancestorIds: [a.id, b.id] });
    expect(await node(t, early.id)).toMatchObject({ trashRootId: early.id });
    expect((await activitiesOf(t, a.id)).map((x) => x.action)).toEqual(['node.delete', 'node.restore']);

    // its folder is live again: the early entry now goes back into it
    expect((await binItems()).find((x) => x.id === early.id)).toMatchObject({ restoresToOriginal: true });
    expect(await ok(await restore(t, w.editor, [early.id]))).toEqual({
      restored: [{ id: early.id, parentId: a.id, name: 'old.txt' }],
    });
  });

  it('a batch is all or nothing: a folder and its child together, an unknown id refuses everything', async () => {
    const a = await f(null, 'Batch');
    const child = await fl(a, 'c.txt');
    const loose = await fl(null, 'loose.txt');
    expect(await ok(await del(t, w.editor, [child.id, a.id, loose.id]))).toEqual({ deleted: 3 });
    expect(await node(t, child.id)).toMatchObject({ trashRootId: a.id });
    expect(await node(t, loose.id)).toMatchObject({ trashRootId: loose.id });

    const b = await fl(null, 'kept.txt');
    const before = await snapshot(t);
    const res = await del(t, w.editor, [b.id, 2_000_000_000]);
    expectError(res, 404, 'drive.node_not_found', 'ids');
    expect(res.json().message).toContain('2000000000');
    // already in the bin: not found either
    expectError(await del(t, w.editor, [b.id, loose.id]), 404, 'drive.node_not_found', 'ids');
    expect(await node(t, b.id)).toMatchObject({ deletedAt: null });
    expect(await snapshot(t)).toEqual(before);
  });

  it('restores into the space root when the original folder is in the bin or purged, the subtree rewritten', async () => {
    const p = await f(null, 'Parent');
    const c = await f(p, 'Child');
    const x = await fl(c, 'x.txt');
    await ok(await del(t, w.editor, [c.id]));
    await ok(await del(t, w.editor, [p.id]));
    expect((await binItems()).find((i) => i.id === c.id)).toMatchObject({
      originalPath: '/Parent',
      restoresToOriginal: false,
    });
    expect(await ok(await restore(t, w.editor, [c.id]))).toEqual({
      restored: [{ id: c.id, parentId: null, name: 'Child' }],
    });
    expect(await node(t, c.id)).toMatchObject({
      parentId: null,
      ancestorIds: [],
      aclChainIds: [c.id],
      deletedAt: null,
    });
    expect(await node(t, x.id)).toMatchObject({ ancestorIds: [c.id], aclChainIds: [c.id, x.id], deletedAt: null });
    expect(await node(t, p.id)).toMatchObject({ trashRootId: p.id });

    const p2 = await f(null, 'Parent2');
    const c2 = await f(p2, 'Child2');
    const x2 = await fl(c2, 'x2.txt');
    await ok(await del(t, w.editor, [c2.id]));
    await ok(await del(t, w.editor, [p2.id]));
    expect(await ok(await purge(t, w.owner, [p2.id]))).toEqual({ purged: 1 });
    expect(await node(t, p2.id)).toBeUndefined();
    expect((await binItems()).find((i) => i.id === c2.id)).toMatchObject({
      originalPath: '/…',
      restoresToOriginal: false,
    });
    expect(await ok(await restore(t, w.editor, [c2.id]))).toEqual({
      restored: [{ id: c2.id, parentId: null, name: 'Child2' }],
    });
    expect(await node(t, x2.id)).toMatchObject({ ancestorIds: [c2.id], aclChainIds: [c2.id, x2.id], deletedAt: null });
  });

  it('restoring next to a live namesake keeps both: "name (1).ext"', async () => {
    const r = await fl(null, 'report.txt');
    const d = await f(null, 'Docs');
    await ok(await del(t, w.editor, [r.id, d.id]));
    await fl(null, 'REPORT.txt');
    await f(null, 'Docs');
    const res = await ok(await restore(t, w.editor, [r.id, d.id]));
    expect(res).toEqual({
      restored: [
        { id: r.id, parentId: null, name: 'report (1).txt' },
        { id: d.id, parentId: null, name: 'Docs (1)' },
      ],
    });
    expect(await node(t, r.id)).toMatchObject({ name: 'report (1).txt', deletedAt: null });
    expect((await activitiesOf(t, r.id)).at(-1)?.detail).toMatchObject({ renamedFrom: 'report.txt' });
  });

  it('a node inside a deleted folder is not a bin entry: 409 drive.not_in_recycle_bin', async () => {
    const a = await f(null, 'Inner');
    const x = await fl(a, 'in.txt');
    const live = await fl(null, 'live.txt');
    await ok(await del(t, w.editor, [a.id]));
    const before = await snapshot(t);
    expectError(await restore(t, w.editor, [x.id]), 409, 'drive.not_in_recycle_bin');
    expectError(await purge(t, w.owner, [x.id]), 409, 'drive.not_in_recycle_bin');
    // a live node is not in the bin at all
    expectError(await restore(t, w.editor, [live.id]), 404, 'drive.node_not_found', 'ids');
    expect(await snapshot(t)).toEqual(before);
  });

  it('an archived space is read-only: no delete, restore or purge (409)', async () => {
    const sp = await space(t, w.tenantId, { ownerUserId: w.owner.userId });
    const x = await file(t, w.tenantId, sp.id, null, 'a.txt', unique('arch'));
    const y = await file(t, w.tenantId, sp.id, null, 'b.txt', unique('arch2'));
    await ok(await del(t, w.owner, [y.id]));
    await t.database.db.update(driveSpaces).set({ archivedAt: new Date() }).where(eq(driveSpaces.id, sp.id));
    expectError(await del(t, w.owner, [x.id]), 409, 'drive.space_archived');
    expectError(await restore(t, w.owner, [y.id]), 409, 'drive.space_archived');
    expectError(await purge(t, w.owner, [y.id]), 409, 'drive.space_archived');
    expect(await node(t, x.id)).toMatchObject({ deletedAt: null });
    expect(await node(t, y.id)).toMatchObject({ trashRootId: y.id });
  });
});

describe('purge and empty', () => {
  it('purge releases the bytes exactly and drops the references; the collector then deletes the objects', async () => {
    const a = await f(null, 'ToPurge');
    const x = await fl(a, 'x.bin', unique('x', 1000));
    const y = await fl(a, 'y.bin', unique('y', 234));
    const used = (await usedBytes(t, w.space.id)) as number;
    const versions = await t.database.db
      .select({ id: driveFileVersions.id, fileId: driveFileVersions.fileId })
      .from(driveFileVersions)
      .where(sql`${driveFileVersions.nodeId} in (${x.id}, ${y.id})`);
    expect(versions).toHaveLength(2);
    const objects = [];
    for (const v of versions) {
      const mf = await rowById(t, managedFiles, v.fileId);
      objects.push(await rowById(t, fileObjects, mf?.objectId as number));
    }
    const keys = objects.map((o) => o?.storageKey as string);
    expect(await t.storedFiles()).toEqual(expect.arrayContaining(keys));

    await ok(await del(t, w.editor, [a.id]));
    // the bin still counts
    expect(await usedBytes(t, w.space.id)).toBe(used);
    expect(await ok(await purge(t, w.owner, [a.id]))).toEqual({ purged: 1 });

    expect(await usedBytes(t, w.space.id)).toBe(used - 1234);
    for (const n of [a, x, y]) expect(await node(t, n.id)).toBeUndefined();
    const refs = await t.database.db
      .select()
      .from(fileRefs)
      .where(
        sql`${fileRefs.ownerType} = 'drive_version' and ${fileRefs.ownerId} in (${versions[0]?.id}, ${versions[1]?.id})`,
      );
    expect(refs).toEqual([]);
    for (const o of objects) {
      expect(await rowById(t, fileObjects, o?.id as number)).toMatchObject({ refCount: 0, gcState: 'orphaned' });
    }
    const [purgeActivity] = (await activitiesOf(t, a.id)).filter((x) => x.action === 'node.purge');
    expect(purgeActivity).toMatchObject({ actorUserId: w.owner.userId, spaceId: w.space.id });
    expect(purgeActivity?.detail).toMatchObject({ name: 'ToPurge', nodes: 3, bytes: 1234, reason: 'manual' });

    await t.app.files.collectOrphans(new Date(Date.now() + 25 * 3600_000));
    const stored = await t.storedFiles();
    for (const key of keys) expect(stored).not.toContain(key);
  });

  it('empty purges every entry of the space but the held ones', async () => {
    const sp = await space(t, w.tenantId, { ownerUserId: w.owner.userId });
    const mk = (name: string, parent: Parameters<typeof folder>[3] = null) =>
      file(t, w.tenantId, sp.id, parent, name, unique(name, 10));
    const d = await folder(t, w.tenantId, sp.id, null, 'HeldFolder');
    const heldFile = await mk('evidence.txt', d);
    const a = await mk('a.txt');
    const b = await mk('b.txt');
    const live = await mk('live.txt');
    await ok(await del(t, w.owner, [a.id, b.id, d.id]));
    const hold = await call(t.app, 'POST', '/api/drive/admin/legal-holds', {
      token: w.admin.token,
      body: { nodeId: heldFile.id, reason: 'litigation' },
    });
    expect(hold.statusCode, hold.body).toBe(201);

    const res = await call(t.app, 'DELETE', `/api/drive/nodes/recycle?spaceId=${sp.id}`, { token: w.owner.token });
    expect(await ok(res)).toEqual({ purged: 2, skippedHeld: 1 });
    expect(await node(t, a.id)).toBeUndefined();
    expect(await node(t, b.id)).toBeUndefined();
    expect(await node(t, d.id)).toMatchObject({ trashRootId: d.id });
    expect(await node(t, heldFile.id)).toMatchObject({ trashRootId: d.id });
    expect(await node(t, live.id)).toMatchObject({ deletedAt: null });
    expect(await usedBytes(t, sp.id)).toBe(20);
    const list = ((await ok(await bin(t, w.owner, sp.id))) as { list: Item[] }).list;
    expect(ids(list)).toEqual([d.id]);
    expect(list[0]).toMatchObject({ id: d.id, held: true });
  });
});

describe('refusals', () => {
  it('bad input is a 400 naming the field, and writes nothing', async () => {
    const x = await fl(null, 'bad-input.txt');
    const before = await snapshot(t);
    const many = Array.from({ length: 101 }, (_, i) => i + 1);
    for (const [method, url, body, field] of [
      ['DELETE', '/api/drive/nodes/batch', {}, 'ids'],
      ['DELETE', '/api/drive/nodes/batch', { ids: [] }, 'ids'],
      ['DELETE', '/api/drive/nodes/batch', { ids: [x.id, x.id] }, 'ids'],
      ['DELETE', '/api/drive/nodes/batch', { ids: many }, 'ids'],
      ['DELETE', '/api/drive/nodes/batch', { ids: ['one'] }, 'ids.0'],
      ['DELETE', '/api/drive/nodes/batch', { ids: [0] }, 'ids.0'],
      ['DELETE', '/api/drive/nodes/batch', { ids: [2 ** 31] }, 'ids.0'],
      ['POST', '/api/drive/nodes/recycle/restore', { ids: [] }, 'ids'],
      ['POST', '/api/drive/nodes/recycle/restore', { ids: [-1] }, 'ids.0'],
      ['POST', '/api/drive/nodes/recycle/purge', { ids: [x.id, x.id] }, 'ids'],
      ['POST', '/api/drive/nodes/recycle/purge', { id: x.id }, 'ids'],
      ['GET', '/api/drive/nodes/recycle', undefined, 'spaceId'],
      ['GET', `/api/drive/nodes/recycle?spaceId=abc`, undefined, 'spaceId'],
      ['GET', `/api/drive/nodes/recycle?spaceId=${w.space.id}&pageSize=0`, undefined, 'pageSize'],
      ['GET', `/api/drive/nodes/recycle?spaceId=${w.space.id}&page=100001`, undefined, 'page'],
      ['DELETE', '/api/drive/nodes/recycle', undefined, 'spaceId'],
      ['DELETE', '/api/drive/nodes/recycle?spaceId=0', undefined, 'spaceId'],
    ] as ['GET' | 'POST' | 'DELETE', string, object | undefined, string][]) {
      const res = await call(t.app, method, url, { token: w.owner.token, ...(body ? { body } : {}) });
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(
        res.json().details.map((d: { field: string }) => d.field),
        `${method} ${url}`,
      ).toContain(field);
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('needs the menu permission: 403 auth.permission_denied, nothing changed', async () => {
    const x = await fl(null, 'perm.txt');
    const y = await fl(null, 'perm-bin.txt');
    await ok(await del(t, w.owner, [y.id]));
    const before = await snapshot(t);
    for (const [user, method, url, body] of [
      [w.viewOnly, 'DELETE', '/api/drive/nodes/batch', { ids: [x.id] }],
      [w.viewOnly, 'POST', '/api/drive/nodes/recycle/restore', { ids: [y.id] }],
      [w.viewOnly, 'POST', '/api/drive/nodes/recycle/purge', { ids: [y.id] }],
      [w.viewOnly, 'DELETE', `/api/drive/nodes/recycle?spaceId=${w.space.id}`],
      [w.noPerm, 'GET', `/api/drive/nodes/recycle?spaceId=${w.space.id}`],
    ] as [{ token: string }, 'GET' | 'POST' | 'DELETE', string, object?][]) {
      const res = await call(t.app, method, url, { token: user.token, ...(body ? { body } : {}) });
      expectError(res, 403, 'auth.permission_denied');
    }
    expect(await snapshot(t)).toEqual(before);
    // the view permission is enough to read the bin
    expect((await bin(t, w.viewOnly, w.space.id)).statusCode).toBe(200);
  });

  it("another tenant's nodes and spaces are not found (404), and stay as they were", async () => {
    const x = await fl(null, 'tenant.txt');
    const y = await fl(null, 'tenant-bin.txt');
    await ok(await del(t, w.owner, [y.id]));
    const before = await snapshot(t);
    const token = other.adminToken;
    expectError(await del(t, { token }, [x.id]), 404, 'drive.node_not_found', 'ids');
    expectError(await restore(t, { token }, [y.id]), 404, 'drive.node_not_found', 'ids');
    expectError(await purge(t, { token }, [y.id]), 404, 'drive.node_not_found', 'ids');
    expectError(await bin(t, { token }, w.space.id), 404, 'drive.space_not_found');
    expectError(
      await call(t.app, 'DELETE', `/api/drive/nodes/recycle?spaceId=${w.space.id}`, { token }),
      404,
      'drive.space_not_found',
    );
    expect(await snapshot(t)).toEqual(before);
    expect(await node(t, y.id)).toMatchObject({ trashRootId: y.id });

    // and the other way round: their bin is theirs
    const theirs = await space(t, other.tenantId, { ownerUserId: other.adminUserId });
    const z = await file(t, other.tenantId, theirs.id, null, 'z.txt', unique('z'));
    await ok(await del(t, { token }, [z.id]));
    expect(ids(((await ok(await bin(t, { token }, theirs.id))) as { list: Item[] }).list)).toEqual([z.id]);
    expectError(await restore(t, w.owner, [z.id]), 404, 'drive.node_not_found');
  });

  it('the role matrix: a viewer cannot delete or restore, an editor cannot purge or empty, no role is not found', async () => {
    const x = await fl(null, 'roles.txt');
    const y = await fl(null, 'roles-bin.txt');
    await ok(await del(t, w.editor, [y.id]));
    const before = await snapshot(t);
    expectError(await del(t, w.viewer, [x.id]), 403, 'drive.role_too_low');
    expectError(await restore(t, w.viewer, [y.id]), 403, 'drive.role_too_low');
    expectError(await purge(t, w.editor, [y.id]), 403, 'drive.role_too_low');
    expectError(
      await call(t.app, 'DELETE', `/api/drive/nodes/recycle?spaceId=${w.space.id}`, { token: w.editor.token }),
      403,
      'drive.role_too_low',
    );
    expectError(await del(t, w.stranger, [x.id]), 404, 'drive.node_not_found');
    expectError(await restore(t, w.stranger, [y.id]), 404, 'drive.node_not_found');
    expectError(await purge(t, w.stranger, [y.id]), 404, 'drive.node_not_found');
    expectError(
      await call(t.app, 'DELETE', `/api/drive/nodes/recycle?spaceId=${w.space.id}`, { token: w.stranger.token }),
      404,
      'drive.space_not_found',
    );
    expect(await snapshot(t)).toEqual(before);

    // a viewer sees the bin; a user with no role in the space sees none of it
    expect(ids(await binItems(w.viewer))).toContain(y.id);
    expect(await binItems(w.stranger)).toEqual([]);
  });

  it('a grant on one folder shows that folder’s entries only to a user without a space role', async () => {
    const { driveNodePermissions } = await import('../../src/modules/drive/tables.ts');
    const shared = await f(null, 'Shared');
    const inside = await fl(shared, 'inside.txt');
    const outside = await fl(null, 'outside.txt');
    await t.database.db.insert(driveNodePermissions).values({
      tenantId: w.tenantId,
      spaceId: w.space.id,
      nodeId: shared.id,
      subjectType: 'user',
      subjectId: w.stranger.userId,
      role: 'editor',
    });
    await ok(await del(t, w.owner, [inside.id, outside.id]));
    expect(ids(await binItems(w.stranger))).toEqual([inside.id]);
    // and the grant's editor role restores it
    expect(await ok(await restore(t, w.stranger, [inside.id]))).toEqual({
      restored: [{ id: inside.id, parentId: shared.id, name: 'inside.txt' }],
    });
    expectError(await restore(t, w.stranger, [outside.id]), 404, 'drive.node_not_found');
  });
});

describe('concurrency', () => {
  it('concurrent deletes and restores of one folder leave it consistent: live or in the bin, children alike', async () => {
    for (let round = 0; round < 10; round++) {
      const a = await f(null, `Race ${round}`);
      const sub = await f(a, 'sub');
      await fl(sub, 'leaf.txt', unique(`leaf${round}`, 8));
      await fl(a, 'top.txt', unique(`top${round}`, 8));
      if (round % 2) await ok(await del(t, w.editor, [a.id]));
      const answers = await Promise.all([
        del(t, w.editor, [a.id]),
        restore(t, w.editor2, [a.id]),
        del(t, w.editor2, [a.id]),
        restore(t, w.editor, [a.id]),
      ]);
      for (const r of answers) expect([200, 404], r.body).toContain(r.statusCode);
      const nodes = await tree(t, a.id);
      expect(nodes).toHaveLength(4);
      const root = nodes.find((n) => n.id === a.id);
      if (root?.deletedAt === null) {
        for (const n of nodes) expect(n).toMatchObject({ deletedAt: null, trashRootId: null });
      } else {
        for (const n of nodes) expect(n).toMatchObject({ trashRootId: a.id, deletedAt: root?.deletedAt });
      }
      // the tree columns are intact either way
      for (const n of nodes.filter((x) => x.id !== a.id)) expect(n.ancestorIds[0]).toBe(a.id);
    }
  });

  it('restoring an entry into its folder while the folder is deleted: never a live node in a deleted folder', async () => {
    for (let round = 0; round < 10; round++) {
      const p = await f(null, `Folder ${round}`);
      const c = await f(p, 'child');
      await fl(c, 'leaf.txt', unique(`cl${round}`, 8));
      await fl(p, 'other.txt', unique(`ot${round}`, 8));
      await ok(await del(t, w.editor, [c.id]));
      const [d, r] = await Promise.all([del(t, w.editor2, [p.id]), restore(t, w.editor, [c.id])]);
      expect(d.statusCode, d.body).toBe(200);
      expect(r.statusCode, r.body).toBe(200);
      const nodes = await tree(t, p.id);
      const restoredTo = r.json().data.restored[0].parentId;
      const child = (await node(t, c.id)) as NonNullable<Awaited<ReturnType<typeof node>>>;
      if (restoredTo === p.id) {
        // restored first: the delete then took it along
        for (const n of nodes) expect(n).toMatchObject({ trashRootId: p.id });
        expect(child).toMatchObject({ parentId: p.id, trashRootId: p.id });
      } else {
        // deleted first: the entry went to the space root, live, with its subtree
        expect(restoredTo).toBeNull();
        expect(child).toMatchObject({ parentId: null, ancestorIds: [], deletedAt: null });
        for (const n of await tree(t, c.id)) expect(n.deletedAt).toBeNull();
        for (const n of await tree(t, p.id)) expect(n).toMatchObject({ trashRootId: p.id });
      }
    }
  });

  it('concurrent purge and restore of one entry: either purged whole or restored whole', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await f(null, `PR ${round}`);
      await fl(a, 'leaf.txt', unique(`pr${round}`, 8));
      await ok(await del(t, w.editor, [a.id]));
      const [p, r] = await Promise.all([purge(t, w.owner, [a.id]), restore(t, w.editor, [a.id])]);
      expect([200, 404]).toContain(p.statusCode);
      expect([200, 404]).toContain(r.statusCode);
      const nodes = await tree(t, a.id);
      if (p.statusCode === 200) expect(nodes).toEqual([]);
      else expect(nodes.map((n) => n.deletedAt)).toEqual([null, null]);
    }
    const [{ n }] = (await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(driveNodes)
      .where(
        sql`${driveNodes.parentId} is not null and not exists (select 1 from drive_nodes p where p.id = ${driveNodes.parentId}) and ${driveNodes.deletedAt} is null`,
      )) as [{ n: number }];
    // no live node lost its parent
    expect(n).toBe(0);
  });
});

describe('the other tenant stays apart', () => {
  it('its own users work in their own space', async () => {
    const u = await driveUser(t, { tenantId: other.tenantId, tenantCode: other.code });
    const sp = await space(t, other.tenantId, { ownerUserId: u.userId });
    const x = await file(t, other.tenantId, sp.id, null, 'theirs.txt', unique('theirs'));
    expect(await ok(await del(t, u, [x.id]))).toEqual({ deleted: 1 });
    expect(await ok(await restore(t, u, [x.id]))).toEqual({
      restored: [{ id: x.id, parentId: null, name: 'theirs.txt' }],
    });
  });
});
