import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertNode } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import {
  driveActivities,
  driveFileVersions,
  driveNodePermissions,
  driveNodes,
  driveSpaces,
} from '../../src/modules/drive/tables.ts';
import { fileObjects, fileRefs, managedFiles } from '../../src/modules/files/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import type { TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { addVersion, grant, names, nodeRow, ok, teamWorld, usedBytes } from './nodes-fixtures.ts';

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

const copy = (token: string, body: object) => call(t.app, 'POST', '/api/drive/nodes/copy', { token, body });
const childrenOf = async (parentId: number) =>
  t.database.db.select().from(driveNodes).where(eq(driveNodes.parentId, parentId)).orderBy(driveNodes.name);
const refsOf = async (fileId: number) =>
  (await t.database.db.select().from(fileRefs).where(eq(fileRefs.fileId, fileId))).length;
const currentFileId = async (nodeId: number) => {
  const n = await nodeRow(t, nodeId);
  const [v] = await t.database.db
    .select()
    .from(driveFileVersions)
    .where(eq(driveFileVersions.id, n?.currentVersionId as number));
  return v?.fileId as number;
};

describe('POST /api/drive/nodes/copy', () => {
  it('copies a file beside itself keeping both: "a (1).txt", "a (2).txt", "A (3).TXT" (any case)', async () => {
    const box = await folder(t, tenantId, s.id, null, 'names');
    const a = await file(t, tenantId, s.id, box, 'a.txt');
    const elsewhere = await folder(t, tenantId, s.id, null, 'names-elsewhere');
    const upper = await file(t, tenantId, s.id, elsewhere, 'A.TXT');
    const one = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [a.id], targetParentId: box.id },
      201,
    );
    expect(one).toMatchObject({
      created: [{ name: 'a (1).txt', parentId: box.id, myRole: 'editor' }],
      skippedIds: [],
      nodeCount: 1,
      omitted: 0,
    });
    const two = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [a.id], targetParentId: box.id },
      201,
    );
    expect(two.created[0].name).toBe('a (2).txt');
    const three = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [upper.id], targetParentId: box.id },
      201,
    );
    expect(three.created[0].name).toBe('A (3).TXT');
    expect(names(await childrenOf(box.id))).toEqual(['A (3).TXT', 'a (1).txt', 'a (2).txt', 'a.txt']);
  });

  it('a copied file shares the stored content: one more reference, no new object, its bytes charged to the target space', async () => {
    const a = await space(t, tenantId, { ownerUserId: owner.userId });
    const b = await space(t, tenantId, { ownerUserId: owner.userId });
    const f = await file(t, tenantId, a.id, null, 'shared.txt', 'twelve bytes');
    const fileId = await currentFileId(f.id);
    const refs = await refsOf(fileId);
    const objects = await rowCount(t, fileObjects);
    const managed = await rowCount(t, managedFiles);
    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      owner.token,
      { ids: [f.id], targetSpaceId: b.id, targetParentId: null },
      201,
    );
    const copyId = res.created[0].id;
    expect(res.created[0]).toMatchObject({
      spaceId: b.id,
      name: 'shared.txt',
      size: 12,
      versionNo: 1,
      createdBy: owner.userId,
    });
    expect(await currentFileId(copyId)).toBe(fileId);
    expect(await refsOf(fileId)).toBe(refs + 1);
    expect(await rowCount(t, fileObjects)).toBe(objects);
    expect(await rowCount(t, managedFiles)).toBe(managed);
    expect(await usedBytes(t, a.id)).toBe(12);
    expect(await usedBytes(t, b.id)).toBe(12);
    const [act] = await t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, copyId));
    expect(act).toMatchObject({
      action: 'node.copy',
      spaceId: b.id,
      detail: { sourceId: f.id, sourceSpaceId: a.id, nodes: 1, bytes: 12 },
    });
  });

  it('copies a folder deeply, only current versions, without grants; copies take the target’s permissions', async () => {
    const src = await folder(t, tenantId, s.id, null, 'tree');
    const sub = await folder(t, tenantId, s.id, src, 'sub');
    const f = await file(t, tenantId, s.id, sub, 'doc.txt', 'v1');
    await addVersion(t, tenantId, f, 'version two');
    const guest = await driveUser(t);
    await grant(t, tenantId, src, { type: 'user', id: guest.userId }, 'editor');
    const target = await folder(t, tenantId, s.id, null, 'tree-target');
    const before = await usedBytes(t, s.id);

    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [src.id], targetParentId: target.id },
      201,
    );
    expect(res).toMatchObject({ created: [{ name: 'tree', parentId: target.id }], nodeCount: 3, omitted: 0 });
    const top = res.created[0].id;
    const [subCopy] = await childrenOf(top);
    expect(subCopy).toMatchObject({
      name: 'sub',
      type: 'folder',
      ancestorIds: [target.id, top],
      aclChainIds: [target.id, top, subCopy?.id],
    });
    const [docCopy] = await childrenOf(subCopy?.id as number);
    expect(docCopy).toMatchObject({
      name: 'doc.txt',
      size: 11,
      versionNo: 1,
      ancestorIds: [target.id, top, subCopy?.id],
    });
    const copyVersions = await t.database.db
      .select()
      .from(driveFileVersions)
      .where(eq(driveFileVersions.nodeId, docCopy?.id as number));
    expect(copyVersions).toHaveLength(1);
    expect(copyVersions[0]?.fileId).toBe(await currentFileId(f.id));
    expect(await usedBytes(t, s.id)).toBe(before + 11);
    const copiedGrants = await t.database.db
      .select()
      .from(driveNodePermissions)
      .where(inArray(driveNodePermissions.nodeId, [top, subCopy?.id as number, docCopy?.id as number]));
    expect(copiedGrants).toEqual([]);
    expectError(
      await call(t.app, 'GET', `/api/drive/nodes/${top}`, { token: guest.token }),
      404,
      'drive.node_not_found',
    );
  });

  it('leaves out what the caller may not copy (below editor), with everything under it', async () => {
    const src = await folder(t, tenantId, s.id, null, 'partly');
    await file(t, tenantId, s.id, src, 'open.txt');
    const closed = await insertNode(t.database.db, { tenantId }, src, {
      spaceId: s.id,
      type: 'folder',
      name: 'closed',
      inheritPermissions: false,
    });
    await file(t, tenantId, s.id, closed, 'secret.txt');
    const viewable = await insertNode(t.database.db, { tenantId }, src, {
      spaceId: s.id,
      type: 'folder',
      name: 'viewable',
      inheritPermissions: false,
    });
    await grant(t, tenantId, viewable, { type: 'user', id: editor.userId }, 'viewer');
    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [src.id], targetParentId: null },
      201,
    );
    expect(res).toMatchObject({ nodeCount: 2, omitted: 3 });
    expect(names(await childrenOf(res.created[0].id))).toEqual(['open.txt']);
    // the manager copies everything
    const all = await ok(t, 'POST', '/api/drive/nodes/copy', owner.token, { ids: [src.id], targetParentId: null }, 201);
    expect(all).toMatchObject({ nodeCount: 5, omitted: 0 });
  });

  it('skip and fail on a same-named node in the target', async () => {
    const box = await folder(t, tenantId, s.id, null, 'copy-conflicts');
    const a = await file(t, tenantId, s.id, box, 'x.txt');
    const b = await file(t, tenantId, s.id, box, 'y.txt');
    const target = await folder(t, tenantId, s.id, null, 'copy-conflicts-target');
    await file(t, tenantId, s.id, target, 'X.TXT');
    const nodes = await rowCount(t, driveNodes);
    expectError(
      await copy(editor.token, { ids: [a.id, b.id], targetParentId: target.id, conflict: 'fail' }),
      409,
      'drive.name_taken',
    );
    expect(await rowCount(t, driveNodes)).toBe(nodes);
    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      editor.token,
      { ids: [a.id, b.id], targetParentId: target.id, conflict: 'skip' },
      201,
    );
    expect(res).toMatchObject({ skippedIds: [a.id], nodeCount: 1, created: [{ name: 'y.txt' }] });
  });

  it('into its own subtree: 400 drive.move_into_subtree, nothing created', async () => {
    const p = await folder(t, tenantId, s.id, null, 'self');
    const c = await folder(t, tenantId, s.id, p, 'inside');
    const nodes = await rowCount(t, driveNodes);
    expectError(
      await copy(owner.token, { ids: [p.id], targetParentId: c.id }),
      400,
      'drive.move_into_subtree',
      'targetParentId',
    );
    expectError(await copy(owner.token, { ids: [p.id], targetParentId: p.id }), 400, 'drive.move_into_subtree');
    expect(await rowCount(t, driveNodes)).toBe(nodes);
  });

  it('without room in the target space: 413 drive.quota_exceeded, nothing created, no reference, usage unchanged', async () => {
    const a = await space(t, tenantId, { ownerUserId: owner.userId });
    const small = await space(t, tenantId, { ownerUserId: owner.userId, quotaBytes: 20 });
    const p = await folder(t, tenantId, a.id, null, 'p');
    await file(t, tenantId, a.id, p, 'one.txt', '0123456789');
    const f2 = await file(t, tenantId, a.id, p, 'two.txt', '0123456789A');
    const counts = async () => [
      await rowCount(t, driveNodes),
      await rowCount(t, fileRefs),
      await rowCount(t, driveFileVersions),
      await rowCount(t, driveActivities),
      await usedBytes(t, small.id),
    ];
    const before = await counts();
    expectError(
      await copy(owner.token, { ids: [p.id], targetSpaceId: small.id, targetParentId: null }),
      413,
      'drive.quota_exceeded',
    );
    expect(await counts()).toEqual(before);
    // the part that fits
    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      owner.token,
      { ids: [f2.id], targetSpaceId: small.id, targetParentId: null },
      201,
    );
    expect(res.nodeCount).toBe(1);
    expect(await usedBytes(t, small.id)).toBe(11);
  });

  it('copies out of an archived (read-only) space, but not into one; moving out of it is refused', async () => {
    const archived = await space(t, tenantId, { ownerUserId: owner.userId });
    const active = await space(t, tenantId, { ownerUserId: owner.userId });
    const f = await file(t, tenantId, archived.id, null, 'kept.txt', 'abc');
    await t.database.db.update(driveSpaces).set({ archivedAt: new Date() }).where(eq(driveSpaces.id, archived.id));
    const res = await ok(
      t,
      'POST',
      '/api/drive/nodes/copy',
      owner.token,
      { ids: [f.id], targetSpaceId: active.id, targetParentId: null },
      201,
    );
    expect(res.created).toMatchObject([{ spaceId: active.id, name: 'kept.txt', size: 3 }]);
    const nodes = await rowCount(t, driveNodes);
    expectError(
      await copy(owner.token, { ids: [res.created[0].id], targetSpaceId: archived.id, targetParentId: null }),
      409,
      'drive.space_archived',
    );
    expectError(
      await call(t.app, 'POST', '/api/drive/nodes/move', {
        token: owner.token,
        body: { ids: [f.id], targetSpaceId: active.id, targetParentId: null },
      }),
      409,
      'drive.space_archived',
    );
    expect(await rowCount(t, driveNodes)).toBe(nodes);
    expect((await nodeRow(t, f.id))?.spaceId).toBe(archived.id);
  });

  it('refuses a copy that would create more than 1,000 nodes (400 naming ids)', async () => {
    const sp = await space(t, tenantId, { ownerUserId: owner.userId });
    const big = await folder(t, tenantId, sp.id, null, 'huge');
    await t.database.db.execute(sql`
      insert into drive_nodes (tenant_id, space_id, parent_id, type, name, ancestor_ids, acl_chain_ids, acl_open)
      select ${tenantId}, ${sp.id}, ${big.id}, 'folder', 'n' || g, array[${big.id}]::int[], array[${big.id}]::int[], true
      from generate_series(1, 1000) g`);
    const nodes = await rowCount(t, driveNodes);
    expectError(
      await copy(owner.token, { ids: [big.id], targetParentId: null }),
      400,
      'request.validation_failed',
      'ids',
    );
    expect(await rowCount(t, driveNodes)).toBe(nodes);
  });

  it('refuses bad input naming the field and creates nothing', async () => {
    const f = await file(t, tenantId, s.id, null, 'input.txt');
    const nodes = await rowCount(t, driveNodes);
    for (const [body, field] of [
      [{ targetParentId: null }, 'ids'],
      [{ ids: [], targetParentId: null }, 'ids'],
      [{ ids: [f.id, f.id], targetParentId: null }, 'ids'],
      [{ ids: [f.id] }, 'targetParentId'],
      [{ ids: [f.id], targetParentId: f.id }, 'targetParentId'],
      [{ ids: [f.id], targetParentId: null, conflict: 'overwrite' }, 'conflict'],
      [{ ids: [f.id], targetParentId: null, targetSpaceId: -1 }, 'targetSpaceId'],
    ] as [object, string][]) {
      const res = await copy(owner.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await rowCount(t, driveNodes)).toBe(nodes);
  });

  it('needs drive:node:edit and the editor role on the sources and the target; another tenant’s nodes are not found', async () => {
    const f = await file(t, tenantId, s.id, null, 'guarded-copy.txt');
    const mine = await space(t, tenantId, { ownerUserId: viewer.userId });
    const nodes = await rowCount(t, driveNodes);
    expectError(await copy(viewOnly.token, { ids: [f.id], targetParentId: null }), 403, 'auth.permission_denied');
    // a viewer may not copy out of the space, not even into their own
    expectError(
      await copy(viewer.token, { ids: [f.id], targetSpaceId: mine.id, targetParentId: null }),
      403,
      'drive.role_too_low',
    );
    expectError(await copy(outsider.token, { ids: [f.id], targetParentId: null }), 404, 'drive.node_not_found');
    expectError(await copy(other.adminToken, { ids: [f.id], targetParentId: null }), 404, 'drive.node_not_found');
    // editor of the source, no role in the target space
    expectError(
      await copy(editor.token, { ids: [f.id], targetSpaceId: mine.id, targetParentId: null }),
      404,
      'drive.space_not_found',
    );
    expect(await rowCount(t, driveNodes)).toBe(nodes);
    expect(await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, mine.id))).toEqual([]);
  });
});
