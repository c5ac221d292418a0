import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  driveActivities,
  driveFileVersions,
  driveLegalHolds,
  driveNodePermissions,
  driveNodes,
  driveSpaceMembers,
  driveSpaces,
} from '../../src/modules/drive/tables.ts';
import { fileObjects, fileRefs, managedFiles } from '../../src/modules/files/tables.ts';
import { users } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { DRIVE_USER, type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';

/**
 * The life of a space (spec §3.5, §4.3): archive and unarchive, deletion with everything in it
 * (managed-file references dropped, refused under a legal hold), and ownership transfer — each
 * with bad input, the menu permission, another tenant's space and roles too low.
 */
let t: TestApp;
let tenantId: number;
let other: TenantFixture;
let admin: DriveUser;
let viewOnly: DriveUser;
beforeAll(async () => {
  t = await createTestApp();
  tenantId = t.demoTenantId;
  ({ other } = await twoTenants(t));
  admin = await driveUser(t, { permissions: [...DRIVE_USER, 'drive:admin:space:edit'] });
  viewOnly = await driveUser(t, { permissions: ['drive:space:view'] });
});
afterAll(async () => t?.close());

const act = (token: string, id: number, verb: 'archive' | 'unarchive') =>
  call(t.app, 'POST', `/api/drive/spaces/${id}/${verb}`, { token });
const del = (token: string, id: number) => call(t.app, 'DELETE', `/api/drive/spaces/${id}`, { token });
const transfer = (token: string, id: number, body: unknown) =>
  call(t.app, 'POST', `/api/drive/spaces/${id}/transfer`, { token, body });
const teamOf = async (owner: DriveUser, name = 'Team') =>
  (await call(t.app, 'POST', '/api/drive/spaces', { token: owner.token, body: { type: 'team', name } })).json().data
    .id as number;
const addMember = (spaceId: number, userId: number, role: 'viewer' | 'editor' | 'manager') =>
  t.database.db.insert(driveSpaceMembers).values({ tenantId, spaceId, subjectType: 'user', subjectId: userId, role });
const actions = async (spaceId: number) =>
  (await t.database.db.select().from(driveActivities).where(eq(driveActivities.spaceId, spaceId))).map((a) => a.action);
const listIds = async (token: string, query = '') =>
  (await call(t.app, 'GET', `/api/drive/spaces?pageSize=200${query}`, { token }))
    .json()
    .data.list.map((s: { id: number }) => s.id);

describe('archive and unarchive', () => {
  it('makes the space read-only and hidden by default; unarchive restores it', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner, 'Projects');
    const colleague = await driveUser(t);

    const res = await act(owner.token, id, 'archive');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.archivedAt).not.toBeNull();
    expect(await listIds(owner.token)).not.toContain(id);
    expect(await listIds(owner.token, '&includeArchived=true')).toContain(id);
    // still readable by id
    expect((await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: owner.token })).statusCode).toBe(200);

    // writes refuse with 409 and write nothing
    const members = await rowCount(t, driveSpaceMembers);
    const addRes = await call(t.app, 'POST', `/api/drive/spaces/${id}/members`, {
      token: owner.token,
      body: { subjectType: 'user', subjectId: colleague.userId, role: 'viewer' },
    });
    expectError(addRes, 409, 'drive.space_archived');
    expect(await rowCount(t, driveSpaceMembers)).toBe(members);
    expectError(
      await call(t.app, 'PUT', `/api/drive/spaces/${id}`, { token: owner.token, body: { name: 'Renamed' } }),
      409,
      'drive.space_archived',
    );
    expectError(await transfer(owner.token, id, { userId: colleague.userId }), 409, 'drive.space_archived');
    expect((await rowById(t, driveSpaces, id))?.name).toBe('Projects');

    // archiving again changes nothing
    const again = await act(owner.token, id, 'archive');
    expect(again.json().data.archivedAt).toBe(res.json().data.archivedAt);

    const back = await act(owner.token, id, 'unarchive');
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.archivedAt).toBeNull();
    expect(await listIds(owner.token)).toContain(id);
    const added = await call(t.app, 'POST', `/api/drive/spaces/${id}/members`, {
      token: owner.token,
      body: { subjectType: 'user', subjectId: colleague.userId, role: 'viewer' },
    });
    expect(added.statusCode, added.body).toBe(201);
    expect((await actions(id)).filter((a) => a.startsWith('space.'))).toEqual([
      'space.create',
      'space.archive',
      'space.unarchive',
    ]);
  });

  it('refuses personal spaces (400), roles below manager (403), strangers and other tenants (404), and users without drive:space:edit', async () => {
    const owner = await driveUser(t);
    const personal = (await call(t.app, 'GET', '/api/drive/spaces?type=personal', { token: owner.token })).json().data
      .list[0].id;
    expectError(await act(owner.token, personal, 'archive'), 400, 'drive.personal_space');

    const id = await teamOf(owner);
    const editor = await driveUser(t);
    await addMember(id, editor.userId, 'editor');
    expectError(await act(editor.token, id, 'archive'), 403, 'drive.role_too_low');
    expectError(await act((await driveUser(t)).token, id, 'archive'), 404, 'drive.space_not_found');
    const foreign = await space(t, other.tenantId, { type: 'team' });
    expectError(await act(admin.token, foreign.id, 'archive'), 404, 'drive.space_not_found');
    expect((await rowById(t, driveSpaces, foreign.id))?.archivedAt).toBeNull();
    const mine = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId });
    expectError(await act(viewOnly.token, mine.id, 'archive'), 403, 'auth.permission_denied');
    expectError(await act(viewOnly.token, mine.id, 'unarchive'), 403, 'auth.permission_denied');
    expect((await rowById(t, driveSpaces, id))?.archivedAt).toBeNull();
    expect((await rowById(t, driveSpaces, mine.id))?.archivedAt).toBeNull();
    expectError(await act(owner.token, 0, 'archive'), 400, 'request.validation_failed', 'id');
  });
});

describe('DELETE /api/drive/spaces/{id}', () => {
  /** The version references of a space's files, and their stored objects. */
  async function storage(spaceId: number) {
    const db = t.database.db;
    const versions = await db.select().from(driveFileVersions).where(eq(driveFileVersions.spaceId, spaceId));
    const ids = versions.map((v) => v.id);
    const refs = ids.length
      ? await db
          .select()
          .from(fileRefs)
          .where(and(eq(fileRefs.ownerType, 'drive_version'), inArray(fileRefs.ownerId, ids)))
      : [];
    return { versions, refs };
  }

  it('deletes the space with everything in it and drops every managed-file reference', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner, 'Doomed');
    const dir = await folder(t, tenantId, id, null, 'Docs');
    const kept = await file(t, tenantId, id, dir, 'a.txt', `a ${Math.random()}`);
    const trashed = await file(t, tenantId, id, null, 'b.txt', `b ${Math.random()}`);
    await t.database.db
      .update(driveNodes)
      .set({ deletedAt: new Date(), trashRootId: trashed.id })
      .where(eq(driveNodes.id, trashed.id));
    const member = await driveUser(t);
    await addMember(id, member.userId, 'viewer');
    await t.database.db.insert(driveNodePermissions).values({
      tenantId,
      spaceId: id,
      nodeId: kept.id,
      subjectType: 'user',
      subjectId: member.userId,
      role: 'editor',
    });
    // a released hold does not stand in the way
    await t.database.db
      .insert(driveLegalHolds)
      .values({ tenantId, spaceId: id, nodeId: kept.id, reason: 'closed case', active: false });

    const before = await storage(id);
    expect(before.versions).toHaveLength(2);
    expect(before.refs).toHaveLength(2);
    const fileIds = before.versions.map((v) => v.fileId);

    const res = await del(owner.token, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ ok: true });

    const after = await storage(id);
    expect(after.versions).toHaveLength(0);
    expect(after.refs).toHaveLength(0);
    expect(await rowById(t, driveSpaces, id)).toBeUndefined();
    expect(await t.database.db.select().from(driveNodes).where(eq(driveNodes.spaceId, id))).toHaveLength(0);
    expect(await t.database.db.select().from(driveSpaceMembers).where(eq(driveSpaceMembers.spaceId, id))).toHaveLength(
      0,
    );
    expect(
      await t.database.db.select().from(driveNodePermissions).where(eq(driveNodePermissions.spaceId, id)),
    ).toHaveLength(0);
    // nothing else holds the stored objects: they are orphaned, for the collector
    const objects = await t.database.db
      .select({ gcState: fileObjects.gcState })
      .from(managedFiles)
      .innerJoin(fileObjects, eq(fileObjects.id, managedFiles.objectId))
      .where(inArray(managedFiles.id, fileIds));
    expect(objects.map((o) => o.gcState)).toEqual(['orphaned', 'orphaned']);
    // the audit survives the space
    expect(await actions(id)).toContain('space.delete');
    expectError(
      await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: owner.token }),
      404,
      'drive.space_not_found',
    );
  });

  it('is refused with 409 drive.legal_hold while a node is held, and nothing changes', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner, 'Held');
    const dir = await folder(t, tenantId, id, null, 'Evidence');
    const held = await file(t, tenantId, id, dir, 'mail.eml', `mail ${Math.random()}`);
    await t.database.db
      .insert(driveLegalHolds)
      .values({ tenantId, spaceId: id, nodeId: held.id, reason: 'litigation', active: true });
    const before = await storage(id);

    expectError(await del(owner.token, id), 409, 'drive.legal_hold');
    expectError(await del(admin.token, id), 409, 'drive.legal_hold');
    expect(await rowById(t, driveSpaces, id)).toBeDefined();
    expect(await storage(id)).toEqual(before);
    expect(before.refs).toHaveLength(1);
    expect(await actions(id)).not.toContain('space.delete');

    await t.database.db.update(driveLegalHolds).set({ active: false }).where(eq(driveLegalHolds.nodeId, held.id));
    expect((await del(owner.token, id)).statusCode).toBe(200);
    expect((await storage(id)).refs).toHaveLength(0);
    // the record of the (released) hold outlives the space, for the audit
    expect(await t.database.db.select().from(driveLegalHolds).where(eq(driveLegalHolds.nodeId, held.id))).toHaveLength(
      1,
    );
  });

  it('is for the owner or a drive administrator: a manager member gets 403 drive.owner_required', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const manager = await driveUser(t);
    const editor = await driveUser(t);
    await addMember(id, manager.userId, 'manager');
    await addMember(id, editor.userId, 'editor');
    expectError(await del(manager.token, id), 403, 'drive.owner_required');
    expectError(await del(editor.token, id), 403, 'drive.role_too_low');
    expectError(await del((await driveUser(t)).token, id), 404, 'drive.space_not_found');
    expect(await rowById(t, driveSpaces, id)).toBeDefined();
    expect((await del(admin.token, id)).statusCode).toBe(200);
    expect(await rowById(t, driveSpaces, id)).toBeUndefined();
  });

  it('deletes an archived space too', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    await act(owner.token, id, 'archive');
    expect((await del(owner.token, id)).statusCode).toBe(200);
  });

  it('refuses personal spaces (400) and leaves department spaces to administrators (403 for the head)', async () => {
    const owner = await driveUser(t);
    const personal = (await call(t.app, 'GET', '/api/drive/spaces?type=personal', { token: owner.token })).json().data
      .list[0].id;
    expectError(await del(owner.token, personal), 400, 'drive.personal_space');
    expectError(await del(admin.token, personal), 400, 'drive.personal_space');
    expect(await rowById(t, driveSpaces, personal)).toBeDefined();

    const head = await driveUser(t);
    const dept = await department(t, tenantId, { headUserId: head.userId });
    const ds = await space(t, tenantId, { type: 'department', departmentId: dept.id });
    expectError(await del(head.token, ds.id), 403, 'drive.admin_required');
    expect(await rowById(t, driveSpaces, ds.id)).toBeDefined();
    expect((await del(admin.token, ds.id)).statusCode).toBe(200);
  });

  it("answers 404 for another tenant's space (unchanged); needs drive:space:edit", async () => {
    const foreign = await space(t, other.tenantId, { type: 'team' });
    await file(t, other.tenantId, foreign.id, null, 'theirs.txt', `theirs ${Math.random()}`);
    const before = await storage(foreign.id);
    expectError(await del(admin.token, foreign.id), 404, 'drive.space_not_found');
    expect(await rowById(t, driveSpaces, foreign.id)).toBeDefined();
    expect(await storage(foreign.id)).toEqual(before);

    const mine = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId });
    expectError(await del(viewOnly.token, mine.id), 403, 'auth.permission_denied');
    expect(await rowById(t, driveSpaces, mine.id)).toBeDefined();
  });
});

describe('POST /api/drive/spaces/{id}/transfer', () => {
  it('gives the space to another user; the previous owner stays a manager member', async () => {
    const owner = await driveUser(t);
    const heir = await driveUser(t);
    const id = await teamOf(owner, 'Heritage');
    await addMember(id, owner.userId, 'viewer'); // an old member row is raised to manager

    const res = await transfer(owner.token, id, { userId: heir.userId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ ownerUserId: heir.userId, myRole: 'manager' });
    expect((await rowById(t, driveSpaces, id))?.ownerUserId).toBe(heir.userId);
    const rows = await t.database.db.select().from(driveSpaceMembers).where(eq(driveSpaceMembers.spaceId, id));
    expect(rows.map((r) => [r.subjectType, r.subjectId, r.role])).toEqual([['user', owner.userId, 'manager']]);
    const [transferAct] = await t.database.db
      .select()
      .from(driveActivities)
      .where(and(eq(driveActivities.spaceId, id), eq(driveActivities.action, 'space.transfer')));
    expect(transferAct?.detail).toEqual({ fromUserId: owner.userId, toUserId: heir.userId });

    // the new owner is manager; the old owner may no longer give it away
    const heirView = await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: heir.token });
    expect(heirView.json().data.myRole).toBe('manager');
    expectError(await transfer(owner.token, id, { userId: owner.userId }), 403, 'drive.owner_required');
    // a drive administrator may
    const third = await driveUser(t);
    expect((await transfer(admin.token, id, { userId: third.userId })).json().data.ownerUserId).toBe(third.userId);
  });

  it('refuses a new owner who is not an active user of the tenant (400 naming userId) and bad input', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const disabled = await driveUser(t);
    await t.database.db.update(users).set({ status: 'disabled' }).where(eq(users.id, disabled.userId));
    const before = await rowById(t, driveSpaces, id);
    const acts = await rowCount(t, driveActivities);
    const members = await rowCount(t, driveSpaceMembers);
    for (const userId of [disabled.userId, other.adminUserId, 2_000_000_000]) {
      expectError(await transfer(owner.token, id, { userId }), 400, 'drive.user_not_found', 'userId');
    }
    for (const body of [{}, { userId: 'x' }, { userId: 0 }, { userId: 2_147_483_648 }]) {
      expectError(await transfer(owner.token, id, body), 400, 'request.validation_failed', 'userId');
    }
    expect(await rowById(t, driveSpaces, id)).toEqual(before);
    expect(await rowCount(t, driveActivities)).toBe(acts);
    expect(await rowCount(t, driveSpaceMembers)).toBe(members);
  });

  it('refuses personal and department spaces (400)', async () => {
    const owner = await driveUser(t);
    const heir = await driveUser(t);
    const personal = (await call(t.app, 'GET', '/api/drive/spaces?type=personal', { token: owner.token })).json().data
      .list[0].id;
    expectError(await transfer(owner.token, personal, { userId: heir.userId }), 400, 'drive.personal_space');
    const dept = await department(t, tenantId);
    const ds = await space(t, tenantId, { type: 'department', departmentId: dept.id });
    expectError(await transfer(admin.token, ds.id, { userId: heir.userId }), 400, 'drive.department_space');
    expect((await rowById(t, driveSpaces, personal))?.ownerUserId).toBe(owner.userId);
    expect((await rowById(t, driveSpaces, ds.id))?.ownerUserId).toBeNull();
  });

  it('needs the owner: a manager member 403 drive.owner_required, a viewer 403 drive.role_too_low; other tenants 404; the menu permission', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const manager = await driveUser(t);
    const viewer = await driveUser(t);
    await addMember(id, manager.userId, 'manager');
    await addMember(id, viewer.userId, 'viewer');
    expectError(await transfer(manager.token, id, { userId: manager.userId }), 403, 'drive.owner_required');
    expectError(await transfer(viewer.token, id, { userId: viewer.userId }), 403, 'drive.role_too_low');
    expect((await rowById(t, driveSpaces, id))?.ownerUserId).toBe(owner.userId);

    const foreign = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
    expectError(await transfer(admin.token, foreign.id, { userId: admin.userId }), 404, 'drive.space_not_found');
    expect((await rowById(t, driveSpaces, foreign.id))?.ownerUserId).toBe(other.adminUserId);

    const mine = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId });
    expectError(await transfer(viewOnly.token, mine.id, { userId: owner.userId }), 403, 'auth.permission_denied');
    expect((await rowById(t, driveSpaces, mine.id))?.ownerUserId).toBe(viewOnly.userId);
  });
});
