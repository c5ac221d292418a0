import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertNode } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import {
  driveActivities,
  driveFileVersions,
  driveNodePermissions,
  driveNodes,
} from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import type { TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { addVersion, grant, lockFor, member, names, nodeRow, ok, teamWorld, usedBytes } from './nodes-fixtures.ts';

let t: TestApp;
let tenantId: number;
let owner: DriveUser;
let editor: DriveUser;
let viewer: DriveUser;
let outsider: DriveUser;
let viewOnly: { token: string };
let other: TenantFixture;
let s: SpaceRow;

beforeAll(async () => {
  t = await createTestApp();
  ({ tenantId, owner, editor, viewer, outsider, viewOnly, other, s } = await teamWorld(t));
});
afterAll(async () => t?.close());

const move = (token: string, body: object) => call(t.app, 'POST', '/api/drive/nodes/move', { token, body });
/** Everything that says where a node is, to compare before and after a refused move. */
const placeOf = async (ids: number[]) =>
  (await t.database.db.select().from(driveNodes).where(inArray(driveNodes.id, ids))).map((n) => ({
    id: n.id,
    name: n.name,
    spaceId: n.spaceId,
    parentId: n.parentId,
    ancestorIds: n.ancestorIds,
    aclChainIds: n.aclChainIds,
  }));

describe('POST /api/drive/nodes/move', () => {
  it('moves a folder with its subtree: ancestors and acl chains follow, node.move is recorded', async () => {
    const from = await folder(t, tenantId, s.id, null, 'from');
    const to = await folder(t, tenantId, s.id, null, 'to');
    const x = await folder(t, tenantId, s.id, from, 'X');
    const y = await folder(t, tenantId, s.id, x, 'Y');
    const f = await file(t, tenantId, s.id, y, 'deep.txt');
    const res = await move(editor.token, { ids: [x.id], targetParentId: to.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      moved: [{ id: x.id, parentId: to.id, name: 'X', myRole: 'editor' }],
      skippedIds: [],
    });
    expect(await nodeRow(t, x.id)).toMatchObject({ parentId: to.id, ancestorIds: [to.id], aclChainIds: [to.id, x.id] });
    expect(await nodeRow(t, y.id)).toMatchObject({
      parentId: x.id,
      ancestorIds: [to.id, x.id],
      aclChainIds: [to.id, x.id, y.id],
    });
    expect(await nodeRow(t, f.id)).toMatchObject({
      ancestorIds: [to.id, x.id, y.id],
      aclChainIds: [to.id, x.id, y.id, f.id],
    });
    const [act] = await t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, x.id));
    expect(act).toMatchObject({
      action: 'node.move',
      actorUserId: editor.userId,
      detail: { from: { spaceId: s.id, parentId: from.id }, to: { spaceId: s.id, parentId: to.id } },
    });
    // and back to the root
    await ok(t, 'POST', '/api/drive/nodes/move', editor.token, { ids: [x.id], targetParentId: null });
    expect(await nodeRow(t, y.id)).toMatchObject({ ancestorIds: [x.id], aclChainIds: [x.id, y.id] });
  });

  it('a grant on the old parent stops applying, one on the new parent applies; a node that breaks inheritance keeps its break', async () => {
    const sp = await space(t, tenantId, { ownerUserId: owner.userId });
    const oldParent = await folder(t, tenantId, sp.id, null, 'old');
    const newParent = await folder(t, tenantId, sp.id, null, 'new');
    const x = await folder(t, tenantId, sp.id, oldParent, 'X');
    const inside = await file(t, tenantId, sp.id, x, 'in.txt');
    const closed = await insertNode(t.database.db, { tenantId }, oldParent, {
      spaceId: sp.id,
      type: 'folder',
      name: 'closed',
      inheritPermissions: false,
    });
    const guest = await driveUser(t);
    await grant(t, tenantId, oldParent, { type: 'user', id: guest.userId }, 'editor');
    await grant(t, tenantId, newParent, { type: 'user', id: guest.userId }, 'viewer');
    const roleOf = async (id: number) => (await ok(t, 'GET', `/api/drive/nodes/${id}`, guest.token)).myRole;
    expect(await roleOf(inside.id)).toBe('editor');

    await ok(t, 'POST', '/api/drive/nodes/move', owner.token, { ids: [x.id, closed.id], targetParentId: newParent.id });
    expect(await roleOf(x.id)).toBe('viewer');
    expect(await roleOf(inside.id)).toBe('viewer');
    expect(await nodeRow(t, closed.id)).toMatchObject({
      parentId: newParent.id,
      ancestorIds: [newParent.id],
      aclChainIds: [closed.id],
      aclOpen: false,
      inheritPermissions: false,
    });
    expectError(
      await call(t.app, 'GET', `/api/drive/nodes/${closed.id}`, { token: guest.token }),
      404,
      'drive.node_not_found',
    );
  });

  it('never into itself or its subtree (400 drive.move_into_subtree), nothing moved', async () => {
    const a = await folder(t, tenantId, s.id, null, 'loopA');
    const b = await folder(t, tenantId, s.id, a, 'loopB');
    const before = await placeOf([a.id, b.id]);
    expectError(
      await move(owner.token, { ids: [a.id], targetParentId: b.id }),
      400,
      'drive.move_into_subtree',
      'targetParentId',
    );
    expectError(await move(owner.token, { ids: [a.id], targetParentId: a.id }), 400, 'drive.move_into_subtree');
    expect(await placeOf([a.id, b.id])).toEqual(before);
  });

  it('a same-named node in the target: fail (default) 409, skip leaves it, keepBoth renames "a (1).txt"', async () => {
    const src = await folder(t, tenantId, s.id, null, 'conflict-src');
    const dst = await folder(t, tenantId, s.id, null, 'conflict-dst');
    const a = await file(t, tenantId, s.id, src, 'a.txt');
    const b = await file(t, tenantId, s.id, src, 'b.txt');
    await file(t, tenantId, s.id, dst, 'A.TXT');
    const before = await placeOf([a.id, b.id]);
    expectError(
      await move(editor.token, { ids: [a.id, b.id], targetParentId: dst.id }),
      409,
      'drive.name_taken',
      'name',
    );
    expect(await placeOf([a.id, b.id])).toEqual(before);

    const skipped = await ok(t, 'POST', '/api/drive/nodes/move', editor.token, {
      ids: [a.id, b.id],
      targetParentId: dst.id,
      conflict: 'skip',
    });
    expect(skipped.skippedIds).toEqual([a.id]);
    expect(skipped.moved.map((n: { id: number }) => n.id)).toEqual([b.id]);
    expect((await nodeRow(t, a.id))?.parentId).toBe(src.id);

    const kept = await ok(t, 'POST', '/api/drive/nodes/move', editor.token, {
      ids: [a.id],
      targetParentId: dst.id,
      conflict: 'keepBoth',
    });
    expect(kept.moved).toMatchObject([{ id: a.id, name: 'a (1).txt', parentId: dst.id }]);
  });

  it('moving to where it already is changes nothing; a source under another source travels with it', async () => {
    const p = await folder(t, tenantId, s.id, null, 'stay');
    const c = await folder(t, tenantId, s.id, p, 'child');
    const target = await folder(t, tenantId, s.id, null, 'stay-target');
    const same = await ok(t, 'POST', '/api/drive/nodes/move', editor.token, { ids: [c.id], targetParentId: p.id });
    expect(same.moved.map((n: { id: number }) => n.id)).toEqual([c.id]);
    const both = await ok(t, 'POST', '/api/drive/nodes/move', editor.token, {
      ids: [c.id, p.id],
      targetParentId: target.id,
    });
    expect(both.moved.map((n: { id: number }) => n.id)).toEqual([p.id]);
    expect(await nodeRow(t, c.id)).toMatchObject({ parentId: p.id, ancestorIds: [target.id, p.id] });
  });

  it('is refused while anything moved is checked out by someone else (423 naming the holder); nothing moved', async () => {
    const p = await folder(t, tenantId, s.id, null, 'locked-tree');
    const inner = await folder(t, tenantId, s.id, p, 'inner');
    const f = await file(t, tenantId, s.id, inner, 'checked-out.txt');
    const target = await folder(t, tenantId, s.id, null, 'lock-target');
    await lockFor(t, f.id, editor.userId);
    const before = await placeOf([p.id, inner.id, f.id]);
    const res = await move(owner.token, { ids: [p.id], targetParentId: target.id });
    expectError(res, 423, 'drive.node_locked');
    expect(res.json().lockedBy).toBe(editor.username);
    expect(await placeOf([p.id, inner.id, f.id])).toEqual(before);
    // the holder moves it
    expect((await move(editor.token, { ids: [p.id], targetParentId: target.id })).statusCode).toBe(200);
  });

  it('to another space: grants, versions and every version’s bytes go along (used bytes exact on both sides)', async () => {
    const a = await space(t, tenantId, { ownerUserId: owner.userId });
    const b = await space(t, tenantId, { ownerUserId: owner.userId });
    const p = await folder(t, tenantId, a.id, null, 'project');
    const f1 = await file(t, tenantId, a.id, p, 'one.txt', '12345');
    await addVersion(t, tenantId, f1, '1234567890');
    const f2 = await file(t, tenantId, a.id, p, 'two.txt', 'abc');
    const stays = await file(t, tenantId, a.id, null, 'stays.txt', 'zz');
    const guest = await driveUser(t);
    await grant(t, tenantId, p, { type: 'user', id: guest.userId }, 'viewer');
    expect(await usedBytes(t, a.id)).toBe(5 + 10 + 3 + 2);
    expect(await usedBytes(t, b.id)).toBe(0);

    const res = await ok(t, 'POST', '/api/drive/nodes/move', owner.token, {
      ids: [p.id],
      targetSpaceId: b.id,
      targetParentId: null,
    });
    expect(res.moved).toMatchObject([{ id: p.id, spaceId: b.id, parentId: null }]);
    expect(await usedBytes(t, a.id)).toBe(2);
    expect(await usedBytes(t, b.id)).toBe(18);
    for (const id of [p.id, f1.id, f2.id]) expect((await nodeRow(t, id))?.spaceId).toBe(b.id);
    expect((await nodeRow(t, stays.id))?.spaceId).toBe(a.id);
    const versions = await t.database.db
      .select()
      .from(driveFileVersions)
      .where(inArray(driveFileVersions.nodeId, [f1.id, f2.id]));
    expect(versions.map((v) => v.spaceId)).toEqual([b.id, b.id, b.id]);
    const grants = await t.database.db.select().from(driveNodePermissions).where(eq(driveNodePermissions.nodeId, p.id));
    expect(grants.map((g) => g.spaceId)).toEqual([b.id]);
    // the grant still applies where the node now is
    expect((await ok(t, 'GET', `/api/drive/nodes/${f1.id}`, guest.token)).myRole).toBe('viewer');
    expect(names((await ok(t, 'GET', `/api/drive/nodes?spaceId=${b.id}`, guest.token)).list)).toEqual(['project']);
  });

  it('to another space without room for the bytes: 413 drive.quota_exceeded, nothing moved, usage unchanged', async () => {
    const a = await space(t, tenantId, { ownerUserId: owner.userId });
    const small = await space(t, tenantId, { ownerUserId: owner.userId, quotaBytes: 10 });
    const p = await folder(t, tenantId, a.id, null, 'too-big');
    const f = await file(t, tenantId, a.id, p, 'big.txt', '0123456789ABC');
    const before = await placeOf([p.id, f.id]);
    expectError(
      await move(owner.token, { ids: [p.id], targetSpaceId: small.id, targetParentId: null }),
      413,
      'drive.quota_exceeded',
    );
    expect(await placeOf([p.id, f.id])).toEqual(before);
    expect(await usedBytes(t, a.id)).toBe(13);
    expect(await usedBytes(t, small.id)).toBe(0);
  });

  it('refuses bad input naming the field and moves nothing', async () => {
    const p = await folder(t, tenantId, s.id, null, 'bad-input');
    const f = await file(t, tenantId, s.id, p, 'f.txt');
    const elsewhere = await space(t, tenantId, { ownerUserId: owner.userId });
    const otherFolder = await folder(t, tenantId, elsewhere.id, null, 'elsewhere');
    const before = await placeOf([p.id, f.id, otherFolder.id]);
    for (const [body, field, key] of [
      [{ targetParentId: null }, 'ids'],
      [{ ids: [], targetParentId: null }, 'ids'],
      [{ ids: [p.id, p.id], targetParentId: null }, 'ids'],
      [{ ids: Array.from({ length: 101 }, (_, i) => i + 1), targetParentId: null }, 'ids'],
      [{ ids: ['x'], targetParentId: null }, 'ids.0'],
      [{ ids: [p.id] }, 'targetParentId'],
      [{ ids: [p.id], targetParentId: 'up' }, 'targetParentId'],
      [{ ids: [p.id], targetParentId: null, conflict: 'replace' }, 'conflict'],
      [{ ids: [p.id], targetParentId: null, targetSpaceId: 0 }, 'targetSpaceId'],
      [{ ids: [p.id], targetParentId: f.id }, 'targetParentId', 'drive.not_a_folder'],
      [{ ids: [p.id], targetParentId: otherFolder.id, targetSpaceId: s.id }, 'targetSpaceId'],
      [{ ids: [p.id, otherFolder.id], targetParentId: null }, 'ids', 'drive.cross_space'],
    ] as [object, string, string?][]) {
      const res = await move(owner.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      if (key) expect(res.json().error).toBe(key);
      expect(
        res
          .json()
          .details.map((d: { field: string }) => d.field)
          .join(' '),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await placeOf([p.id, f.id, otherFolder.id])).toEqual(before);
  });

  it('needs drive:node:edit, the editor role on every source and on the target; another tenant’s nodes are not found', async () => {
    const p = await folder(t, tenantId, s.id, null, 'guarded');
    const target = await folder(t, tenantId, s.id, null, 'guarded-target');
    const viewerOnTarget = await driveUser(t);
    const sp = await space(t, tenantId, { ownerUserId: viewerOnTarget.userId });
    const own = await folder(t, tenantId, sp.id, null, 'mine');
    await member(t, tenantId, s.id, { type: 'user', id: viewerOnTarget.userId }, 'viewer');
    const before = await placeOf([p.id, own.id]);
    expectError(await move(viewOnly.token, { ids: [p.id], targetParentId: target.id }), 403, 'auth.permission_denied');
    expectError(await move(viewer.token, { ids: [p.id], targetParentId: target.id }), 403, 'drive.role_too_low');
    // manager of the source's space, viewer of the target's
    expectError(
      await move(viewerOnTarget.token, { ids: [own.id], targetParentId: target.id }),
      403,
      'drive.role_too_low',
    );
    expectError(await move(outsider.token, { ids: [p.id], targetParentId: null }), 404, 'drive.node_not_found');
    expectError(await move(other.adminToken, { ids: [p.id], targetParentId: null }), 404, 'drive.node_not_found');
    expectError(
      await move(owner.token, { ids: [p.id], targetParentId: null, targetSpaceId: 2_000_000 }),
      404,
      'drive.space_not_found',
    );
    expect(await placeOf([p.id, own.id])).toEqual(before);
    // their own node into this tenant's folder or space: not found either
    const theirSpace = await space(t, other.tenantId, { ownerUserId: other.adminUserId });
    const theirs = await folder(t, other.tenantId, theirSpace.id, null, 'theirs');
    const theirsBefore = await placeOf([theirs.id]);
    for (const url of ['/api/drive/nodes/move', '/api/drive/nodes/copy']) {
      for (const [body, key] of [
        [{ ids: [theirs.id], targetParentId: target.id }, 'drive.node_not_found'],
        [{ ids: [theirs.id], targetSpaceId: s.id, targetParentId: null }, 'drive.space_not_found'],
      ] as [object, string][]) {
        expectError(await call(t.app, 'POST', url, { token: other.adminToken, body }), 404, key);
      }
    }
    expect(await placeOf([theirs.id])).toEqual(theirsBefore);
    expect(
      (await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, s.id))).some(
        (n) => n.name === 'theirs',
      ),
    ).toBe(false);
  });
});
