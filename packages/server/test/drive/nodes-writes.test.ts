import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertNode, type NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveActivities, driveNodes, driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import type { TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, file, folder, space } from './drive-fixtures.ts';
import { lockFor, nodeRow, ok, teamWorld } from './nodes-fixtures.ts';

let t: TestApp;
let tenantId: number;
let owner: DriveUser;
let editor: DriveUser;
let viewer: DriveUser;
let outsider: DriveUser;
let viewOnly: { token: string };
let other: TenantFixture;
let s: SpaceRow;
let docs: NodeRow;

beforeAll(async () => {
  t = await createTestApp();
  ({ tenantId, owner, editor, viewer, outsider, viewOnly, other, s } = await teamWorld(t));
  docs = await folder(t, tenantId, s.id, null, 'Docs');
});
afterAll(async () => t?.close());

const createFolder = (token: string, body: object) => call(t.app, 'POST', '/api/drive/nodes/folder', { token, body });
const activitiesOf = (nodeId: number) =>
  t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, nodeId));

describe('POST /api/drive/nodes/folder', () => {
  it('creates a folder at the root and in a folder (201), recording node.create', async () => {
    const res = await createFolder(editor.token, { spaceId: s.id, name: '  Plans  ' });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json().data;
    expect(made).toMatchObject({
      spaceId: s.id,
      parentId: null,
      type: 'folder',
      name: 'Plans',
      size: 0,
      createdBy: editor.userId,
      myRole: 'editor',
      skipped: false,
      inheritPermissions: true,
    });
    expect(await nodeRow(t, made.id)).toMatchObject({ ancestorIds: [], aclChainIds: [made.id], aclOpen: true });
    expect((await activitiesOf(made.id)).map((a) => [a.action, a.actorUserId])).toEqual([
      ['node.create', editor.userId],
    ]);

    const inner = await ok(
      t,
      'POST',
      '/api/drive/nodes/folder',
      owner.token,
      { spaceId: s.id, parentId: made.id, name: 'Q1' },
      201,
    );
    expect(inner).toMatchObject({ parentId: made.id, myRole: 'manager' });
    expect(await nodeRow(t, inner.id)).toMatchObject({ ancestorIds: [made.id], aclChainIds: [made.id, inner.id] });
  });

  it('keeps both by default: "name (1)", "name (2)", whatever the case', async () => {
    const first = await ok(
      t,
      'POST',
      '/api/drive/nodes/folder',
      editor.token,
      { spaceId: s.id, parentId: docs.id, name: 'v1.0' },
      201,
    );
    const second = await ok(
      t,
      'POST',
      '/api/drive/nodes/folder',
      editor.token,
      { spaceId: s.id, parentId: docs.id, name: 'v1.0' },
      201,
    );
    const third = await ok(
      t,
      'POST',
      '/api/drive/nodes/folder',
      editor.token,
      { spaceId: s.id, parentId: docs.id, name: 'V1.0', conflict: 'keepBoth' },
      201,
    );
    expect([first.name, second.name, third.name]).toEqual(['v1.0', 'v1.0 (1)', 'V1.0 (2)']);
  });

  it('skip answers 200 with the existing folder; fail answers 409; a file of the name is a conflict for skip too', async () => {
    const existing = await folder(t, tenantId, s.id, docs, 'Reports');
    await file(t, tenantId, s.id, docs, 'notes');
    const before = await rowCount(t, driveNodes);
    const skipped = await call(t.app, 'POST', '/api/drive/nodes/folder', {
      token: editor.token,
      body: { spaceId: s.id, parentId: docs.id, name: 'REPORTS', conflict: 'skip' },
    });
    expect(skipped.statusCode, skipped.body).toBe(200);
    expect(skipped.json().data).toMatchObject({ id: existing.id, name: 'Reports', skipped: true });
    expectError(
      await createFolder(editor.token, { spaceId: s.id, parentId: docs.id, name: 'reports', conflict: 'fail' }),
      409,
      'drive.name_taken',
      'name',
    );
    expectError(
      await createFolder(editor.token, { spaceId: s.id, parentId: docs.id, name: 'Notes', conflict: 'skip' }),
      409,
      'drive.name_taken',
    );
    // a folder the caller may not see is not handed out by skip
    const hidden = await insertNode(t.database.db, { tenantId }, docs, {
      spaceId: s.id,
      type: 'folder',
      name: 'Hidden',
      inheritPermissions: false,
    });
    const count = await rowCount(t, driveNodes);
    expectError(
      await createFolder(editor.token, { spaceId: s.id, parentId: docs.id, name: 'hidden', conflict: 'skip' }),
      409,
      'drive.name_taken',
    );
    expect(
      (await createFolder(owner.token, { spaceId: s.id, parentId: docs.id, name: 'hidden', conflict: 'skip' })).json()
        .data,
    ).toMatchObject({
      id: hidden.id,
      skipped: true,
    });
    expect(await rowCount(t, driveNodes)).toBe(count);
    expect(count).toBe(before + 1);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const f = await file(t, tenantId, s.id, null, 'plain.txt');
    const elsewhere = await folder(
      t,
      tenantId,
      (await space(t, tenantId, { ownerUserId: owner.userId })).id,
      null,
      'x',
    );
    const before = await rowCount(t, driveNodes);
    const acts = await rowCount(t, driveActivities);
    for (const [body, field] of [
      [{ name: 'x' }, 'spaceId'],
      [{ spaceId: s.id }, 'name'],
      [{ spaceId: s.id, name: '' }, 'name'],
      [{ spaceId: s.id, name: '   ' }, 'name'],
      [{ spaceId: s.id, name: 'a/b' }, 'name'],
      [{ spaceId: s.id, name: 'a\\b' }, 'name'],
      [{ spaceId: s.id, name: '..' }, 'name'],
      [{ spaceId: s.id, name: 'tab\there' }, 'name'],
      [{ spaceId: s.id, name: 'x'.repeat(256) }, 'name'],
      [{ spaceId: s.id, name: 'x'.repeat(1025) }, 'name'],
      [{ spaceId: s.id, name: 7 }, 'name'],
      [{ spaceId: 'one', name: 'x' }, 'spaceId'],
      [{ spaceId: s.id, parentId: 'x', name: 'x' }, 'parentId'],
      [{ spaceId: s.id, parentId: 0, name: 'x' }, 'parentId'],
      [{ spaceId: s.id, name: 'x', conflict: 'merge' }, 'conflict'],
      [{ spaceId: s.id, parentId: elsewhere.id, name: 'x' }, 'parentId'],
      [{ spaceId: s.id, parentId: f.id, name: 'x' }, 'parentId'],
    ] as [object, string][]) {
      const res = await createFolder(owner.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().details.map((d: { field: string }) => d.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect(await rowCount(t, driveNodes)).toBe(before);
    expect(await rowCount(t, driveActivities)).toBe(acts);
  });

  it('needs drive:node:edit (403) and the editor role (viewer: 403 drive.role_too_low; no role: 404)', async () => {
    const before = await rowCount(t, driveNodes);
    expectError(await createFolder(viewOnly.token, { spaceId: s.id, name: 'x' }), 403, 'auth.permission_denied');
    expectError(await createFolder(viewer.token, { spaceId: s.id, name: 'x' }), 403, 'drive.role_too_low');
    expectError(
      await createFolder(viewer.token, { spaceId: s.id, parentId: docs.id, name: 'x' }),
      403,
      'drive.role_too_low',
    );
    expectError(await createFolder(outsider.token, { spaceId: s.id, name: 'x' }), 404, 'drive.space_not_found');
    expectError(
      await createFolder(outsider.token, { spaceId: s.id, parentId: docs.id, name: 'x' }),
      404,
      'drive.node_not_found',
    );
    expect(await rowCount(t, driveNodes)).toBe(before);
  });

  it('another tenant’s space or folder is not found (404), nothing written', async () => {
    const before = await rowCount(t, driveNodes);
    expectError(await createFolder(other.adminToken, { spaceId: s.id, name: 'x' }), 404, 'drive.space_not_found');
    expectError(
      await createFolder(other.adminToken, { spaceId: s.id, parentId: docs.id, name: 'x' }),
      404,
      'drive.node_not_found',
    );
    expect(await rowCount(t, driveNodes)).toBe(before);
  });

  it('an archived space is read-only (409 drive.space_archived)', async () => {
    const archived = await space(t, tenantId, { ownerUserId: owner.userId });
    await t.database.db.update(driveSpaces).set({ archivedAt: new Date() }).where(eq(driveSpaces.id, archived.id));
    expectError(await createFolder(owner.token, { spaceId: archived.id, name: 'x' }), 409, 'drive.space_archived');
  });
});

describe('PUT /api/drive/nodes/:id/rename', () => {
  const rename = (token: string, id: number, body: object) =>
    call(t.app, 'PUT', `/api/drive/nodes/${id}/rename`, { token, body });

  it('renames, records node.rename, and allows a case change of its own name', async () => {
    const f = await file(t, tenantId, s.id, docs, 'draft.txt');
    const res = await rename(editor.token, f.id, { name: 'final.txt' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: f.id, name: 'final.txt', updatedBy: editor.userId, myRole: 'editor' });
    expect((await nodeRow(t, f.id))?.name).toBe('final.txt');
    expect((await rename(editor.token, f.id, { name: 'FINAL.txt' })).json().data.name).toBe('FINAL.txt');
    const acts = await activitiesOf(f.id);
    expect(acts.filter((a) => a.action === 'node.rename').map((a) => a.detail)).toEqual([
      { from: 'draft.txt', to: 'final.txt' },
      { from: 'final.txt', to: 'FINAL.txt' },
    ]);
  });

  it('refuses the name of a live sibling, in any case (409 drive.name_taken); a deleted sibling’s name is free', async () => {
    const a = await file(t, tenantId, s.id, docs, 'a.md');
    await file(t, tenantId, s.id, docs, 'B.md');
    const gone = await file(t, tenantId, s.id, docs, 'c.md');
    await t.database.db
      .update(driveNodes)
      .set({ deletedAt: new Date(), trashRootId: gone.id })
      .where(eq(driveNodes.id, gone.id));
    expectError(await rename(editor.token, a.id, { name: 'b.MD' }), 409, 'drive.name_taken', 'name');
    expect((await nodeRow(t, a.id))?.name).toBe('a.md');
    expect((await rename(editor.token, a.id, { name: 'c.md' })).statusCode).toBe(200);
  });

  it('refuses a blocked extension for a file (400 files.blocked_type naming name), not for a folder', async () => {
    const f = await file(t, tenantId, s.id, docs, 'tool.txt');
    expectError(await rename(editor.token, f.id, { name: 'tool.EXE' }), 400, 'files.blocked_type', 'name');
    expectError(await rename(editor.token, f.id, { name: 'tool.txt.exe' }), 400, 'files.blocked_type', 'name');
    expect((await nodeRow(t, f.id))?.name).toBe('tool.txt');
    const dir = await folder(t, tenantId, s.id, docs, 'builds');
    expect((await rename(editor.token, dir.id, { name: 'builds.exe' })).statusCode).toBe(200);
  });

  it('refuses bad input naming the field and changes nothing', async () => {
    const f = await file(t, tenantId, s.id, docs, 'keep.txt');
    for (const [body, field] of [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: ' ' }, 'name'],
      [{ name: 'a/b' }, 'name'],
      [{ name: 'x'.repeat(300) }, 'name'],
      [{ name: null }, 'name'],
    ] as [object, string][]) {
      const res = await rename(owner.token, f.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expectError(await rename(owner.token, 0, { name: 'x' }), 400, 'request.validation_failed', 'id');
    expect((await nodeRow(t, f.id))?.name).toBe('keep.txt');
  });

  it('is refused while another user has the node checked out (423 naming the holder); the holder may rename', async () => {
    const f = await file(t, tenantId, s.id, docs, 'locked.txt');
    await lockFor(t, f.id, editor.userId);
    const res = await rename(owner.token, f.id, { name: 'other.txt' });
    expectError(res, 423, 'drive.node_locked');
    expect(res.json().message).toContain(editor.username);
    expect(res.json().lockedBy).toBe(editor.username);
    expect((await nodeRow(t, f.id))?.name).toBe('locked.txt');
    expect((await rename(editor.token, f.id, { name: 'mine.txt' })).statusCode).toBe(200);
    // an expired lock is no lock
    await lockFor(t, f.id, editor.userId, new Date(Date.now() - 1000));
    expect((await rename(owner.token, f.id, { name: 'free.txt' })).statusCode).toBe(200);
  });

  it('needs drive:node:edit (403) and the editor role (viewer 403, no role 404); another tenant’s node is not found', async () => {
    const f = await file(t, tenantId, s.id, docs, 'guarded.txt');
    expectError(await rename(viewOnly.token, f.id, { name: 'x' }), 403, 'auth.permission_denied');
    expectError(await rename(viewer.token, f.id, { name: 'x' }), 403, 'drive.role_too_low');
    expectError(await rename(outsider.token, f.id, { name: 'x' }), 404, 'drive.node_not_found');
    expectError(await rename(other.adminToken, f.id, { name: 'x' }), 404, 'drive.node_not_found');
    expect((await nodeRow(t, f.id))?.name).toBe('guarded.txt');
  });

  it('20 concurrent renames of 20 nodes to one name in one folder: exactly one wins, 19 get 409', async () => {
    const box = await folder(t, tenantId, s.id, null, 'race');
    const nodes = [];
    for (let i = 0; i < 20; i++) nodes.push(await folder(t, tenantId, s.id, box, `n${i}`));
    const results = await Promise.all(nodes.map((n) => rename(editor.token, n.id, { name: 'Same' })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(19);
    for (const r of results) if (r.statusCode === 409) expect(r.json().error).toBe('drive.name_taken');
    const same = await t.database.db
      .select()
      .from(driveNodes)
      .where(and(eq(driveNodes.parentId, box.id), eq(driveNodes.name, 'Same')));
    expect(same).toHaveLength(1);
  });
});
