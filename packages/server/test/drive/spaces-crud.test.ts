import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities, driveNodes, driveSpaceMembers, driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { DRIVE_USER, type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';

/**
 * GET/POST /api/drive/spaces, GET/PUT /api/drive/spaces/{id}: my spaces (filters, pages),
 * creating team and department spaces, a space with its usage, and changing a space — with bad
 * input (400 naming the field, nothing written), the menu permission, another tenant's space
 * (404, unchanged) and roles too low (§5.5).
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

const GB = 1024 ** 3;
const post = (token: string, body: unknown) => call(t.app, 'POST', '/api/drive/spaces', { token, body });
const put = (token: string, id: number, body: unknown) =>
  call(t.app, 'PUT', `/api/drive/spaces/${id}`, { token, body });
const get = (token: string, id: number) => call(t.app, 'GET', `/api/drive/spaces/${id}`, { token });
const list = (token: string, query = '') => call(t.app, 'GET', `/api/drive/spaces${query}`, { token });
const counts = async () => ({ spaces: await rowCount(t, driveSpaces), activities: await rowCount(t, driveActivities) });
const activitiesOf = (spaceId: number, action: string) =>
  t.database.db
    .select()
    .from(driveActivities)
    .where(and(eq(driveActivities.spaceId, spaceId), eq(driveActivities.action, action)));

describe('POST /api/drive/spaces', () => {
  it('creates a team space owned by the caller, with the settings defaults, and records space.create', async () => {
    const u = await driveUser(t);
    const res = await post(u.token, { type: 'team', name: '  Marketing  ', description: 'Campaigns' });
    expect(res.statusCode, res.body).toBe(201);
    const view = res.json().data;
    expect(view).toMatchObject({
      type: 'team',
      name: 'Marketing',
      description: 'Campaigns',
      ownerUserId: u.userId,
      departmentId: null,
      defaultMemberRole: null,
      quotaBytes: 50 * GB,
      usedBytes: 0,
      reservedBytes: 0,
      maxVersions: 50,
      externalShareEnabled: true,
      archivedAt: null,
      myRole: 'manager',
    });
    expect(await rowById(t, driveSpaces, view.id)).toMatchObject({
      ownerUserId: u.userId,
      createdBy: u.userId,
      quotaBytes: null,
    });
    const [act] = await activitiesOf(view.id, 'space.create');
    expect(act).toMatchObject({ actorUserId: u.userId, nodeId: null, detail: { type: 'team', name: 'Marketing' } });

    const own = await post(u.token, {
      type: 'team',
      name: 'Own settings',
      defaultMemberRole: 'editor',
      maxVersions: 3,
      externalShareEnabled: false,
    });
    expect(own.json().data).toMatchObject({ defaultMemberRole: 'editor', maxVersions: 3, externalShareEnabled: false });
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const u = await driveUser(t);
    const before = await counts();
    for (const [body, field] of [
      [{ name: 'x' }, 'type'],
      [{ type: 'personal', name: 'x' }, 'type'],
      [{ type: 'shared', name: 'x' }, 'type'],
      [{ type: 'team' }, 'name'],
      [{ type: 'team', name: '' }, 'name'],
      [{ type: 'team', name: '    ' }, 'name'],
      [{ type: 'team', name: 'x'.repeat(101) }, 'name'],
      [{ type: 'team', name: 'a\u0001b' }, 'name'],
      [{ type: 'team', name: 7 }, 'name'],
      [{ type: 'team', name: 'x', description: 'd'.repeat(1001) }, 'description'],
      [{ type: 'team', name: 'x', description: 'a\u0000b' }, 'description'],
      [{ type: 'team', name: 'x', defaultMemberRole: 'owner' }, 'defaultMemberRole'],
      [{ type: 'team', name: 'x', defaultMemberRole: '' }, 'defaultMemberRole'],
      [{ type: 'team', name: 'x', maxVersions: 0 }, 'maxVersions'],
      [{ type: 'team', name: 'x', maxVersions: 1001 }, 'maxVersions'],
      [{ type: 'team', name: 'x', maxVersions: 2.5 }, 'maxVersions'],
      [{ type: 'team', name: 'x', externalShareEnabled: 'yes' }, 'externalShareEnabled'],
      [{ type: 'team', name: 'x', departmentId: 0 }, 'departmentId'],
      [{ type: 'team', name: 'x', departmentId: 1 }, 'departmentId'],
    ] as [object, string][]) {
      expectError(await post(u.token, body), 400, 'request.validation_failed', field);
    }
    for (const [body, field] of [
      [{ type: 'team', name: 'x', quotaBytes: -1 }, 'quotaBytes'],
      [{ type: 'team', name: 'x', quotaBytes: 1024 ** 5 + 1 }, 'quotaBytes'],
      [{ type: 'department', name: 'x' }, 'departmentId'],
    ] as [object, string][]) {
      expectError(await post(admin.token, body), 400, 'request.validation_failed', field);
    }
    expect(await counts()).toEqual(before);
  });

  it('leaves quotaBytes to drive administrators (403 drive.admin_required, nothing written)', async () => {
    const u = await driveUser(t);
    const before = await counts();
    expectError(
      await post(u.token, { type: 'team', name: 'Big', quotaBytes: 0 }),
      403,
      'drive.admin_required',
      'quotaBytes',
    );
    expect(await counts()).toEqual(before);
    const res = await post(admin.token, { type: 'team', name: 'Unlimited', quotaBytes: 0 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ quotaBytes: 0, ownerUserId: admin.userId });
    const sized = await post(admin.token, { type: 'team', name: 'Sized', quotaBytes: 5 * GB });
    expect(sized.json().data.quotaBytes).toBe(5 * GB);
  });

  it('creates department spaces for drive administrators only, one per department of the tenant', async () => {
    const dept = await department(t, tenantId, { name: 'Finance' });
    const u = await driveUser(t);
    const before = await counts();
    expectError(
      await post(u.token, { type: 'department', name: 'Finance', departmentId: dept.id }),
      403,
      'drive.admin_required',
      'type',
    );
    // a department of another tenant is not one of this tenant's
    const foreign = await department(t, other.tenantId);
    for (const departmentId of [foreign.id, 2_000_000_000]) {
      expectError(
        await post(admin.token, { type: 'department', name: 'F', departmentId }),
        400,
        'drive.subject_not_found',
        'departmentId',
      );
    }
    expect(await counts()).toEqual(before);

    const res = await post(admin.token, {
      type: 'department',
      name: 'Finance',
      departmentId: dept.id,
      defaultMemberRole: 'editor',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      type: 'department',
      departmentId: dept.id,
      ownerUserId: null,
      defaultMemberRole: 'editor',
      quotaBytes: 100 * GB,
      myRole: 'manager',
    });
    const again = await post(admin.token, { type: 'department', name: 'Finance 2', departmentId: dept.id });
    expectError(again, 409, 'drive.department_space_exists', 'departmentId');
    expect(await rowCount(t, driveSpaces)).toBe(before.spaces + 1);
  });

  it('needs drive:space:edit', async () => {
    const before = await counts();
    expectError(await post(viewOnly.token, { type: 'team', name: 'x' }), 403, 'auth.permission_denied');
    expect(await counts()).toEqual(before);
  });
});

describe('GET /api/drive/spaces', () => {
  it('lists my spaces by page, filters by type, hides archived ones unless asked', async () => {
    const u = await driveUser(t);
    const names = ['Gamma', 'alpha', 'Beta'];
    const ids: number[] = [];
    for (const name of names) ids.push((await post(u.token, { type: 'team', name })).json().data.id);
    const archived = await space(t, tenantId, { type: 'team', ownerUserId: u.userId, name: 'Old' });
    await t.database.db.update(driveSpaces).set({ archivedAt: new Date() }).where(eq(driveSpaces.id, archived.id));
    // someone else's members-only team space is not mine
    const stranger = await driveUser(t);
    await space(t, tenantId, { type: 'team', ownerUserId: stranger.userId, name: 'Secret' });

    const res = await list(u.token, '?type=team&pageSize=2');
    expect(res.statusCode, res.body).toBe(200);
    const page1 = res.json().data;
    const mineOnly = (items: { ownerUserId: number; name: string }[]) =>
      items.filter((s) => s.ownerUserId === u.userId);
    // other team spaces open to every signed-in user may come first; mine are by name
    const all = (await list(u.token, '?type=team&pageSize=200')).json().data.list;
    expect(mineOnly(all).map((s: { name: string }) => s.name)).toEqual(['alpha', 'Beta', 'Gamma']);
    expect(page1).toMatchObject({ page: 1, pageSize: 2, total: all.length });
    expect(page1.list).toHaveLength(2);
    expect(all.some((s: { name: string }) => s.name === 'Secret' || s.name === 'Old')).toBe(false);

    const withArchived = (await list(u.token, '?type=team&includeArchived=true&pageSize=200')).json().data.list;
    expect(withArchived.find((s: { id: number }) => s.id === archived.id)).toMatchObject({
      name: 'Old',
      myRole: 'manager',
    });
    expect(withArchived.find((s: { id: number }) => s.id === archived.id).archivedAt).not.toBeNull();

    const personal = (await list(u.token, '?type=personal')).json().data;
    expect(personal.total).toBe(1);
    expect(personal.list[0]).toMatchObject({ type: 'personal', ownerUserId: u.userId, quotaBytes: 10 * GB });
  });

  it('refuses bad query values naming the field', async () => {
    const u = await driveUser(t);
    for (const [q, field] of [
      ['?type=shared', 'type'],
      ['?includeArchived=maybe', 'includeArchived'],
      ['?all=2', 'all'],
      ['?page=0', 'page'],
      ['?pageSize=201', 'pageSize'],
    ]) {
      expectError(await list(u.token, q), 400, 'request.validation_failed', field);
    }
    // a refused request creates no personal space
    const [row] = await t.database.db.select().from(driveSpaces).where(eq(driveSpaces.ownerUserId, u.userId));
    expect(row).toBeUndefined();
  });

  it('needs drive:space:view', async () => {
    const none = await driveUser(t, { permissions: ['drive:node:view'] });
    expectError(await list(none.token), 403, 'auth.permission_denied');
  });

  it("never shows another tenant's spaces, not even to a drive administrator with all=true", async () => {
    const foreign = await space(t, other.tenantId, { type: 'team', defaultMemberRole: 'viewer', name: 'Foreign' });
    const all = (await list(admin.token, '?all=true&includeArchived=true&pageSize=200')).json().data;
    expect(all.list.some((s: { id: number }) => s.id === foreign.id)).toBe(false);
    expect(all.list.every((s: { id: number }) => s.id !== foreign.id)).toBe(true);
  });
});

describe('GET /api/drive/spaces/{id}', () => {
  it('answers the space with its usage and my role', async () => {
    const u = await driveUser(t);
    const id = (await post(u.token, { type: 'team', name: 'Docs', defaultMemberRole: 'viewer' })).json().data.id;
    const dir = await folder(t, tenantId, id, null, 'Reports');
    await file(t, tenantId, id, dir, 'a.txt', 'x'.repeat(100));
    const trashed = await file(t, tenantId, id, null, 'b.txt', 'y'.repeat(40));
    await t.database.db
      .update(driveNodes)
      .set({ deletedAt: new Date(), trashRootId: trashed.id })
      .where(eq(driveNodes.id, trashed.id));

    const res = await get(u.token, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      id,
      name: 'Docs',
      usedBytes: 140,
      myRole: 'manager',
      usage: { quotaBytes: 50 * GB, usedBytes: 140, reservedBytes: 0, liveBytes: 100, trashBytes: 40, versionBytes: 0 },
    });
    const reader = await driveUser(t);
    expect((await get(reader.token, id)).json().data.myRole).toBe('viewer');
  });

  it("answers 404 for another tenant's space, an unknown id, and a space I have no role in; 400 for a bad id", async () => {
    const foreign = await space(t, other.tenantId, { type: 'team', defaultMemberRole: 'manager' });
    const closed = await space(t, tenantId, { type: 'team', defaultMemberRole: null });
    const stranger = await driveUser(t);
    for (const id of [foreign.id, closed.id, 2_000_000_000]) {
      expectError(await get(stranger.token, id), 404, 'drive.space_not_found');
    }
    // a drive administrator is manager in the tenant's spaces, not in another tenant's
    expect((await get(admin.token, closed.id)).json().data.myRole).toBe('manager');
    expectError(await get(admin.token, foreign.id), 404, 'drive.space_not_found');
    for (const id of ['0', 'abc', '2147483648']) {
      expectError(
        await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: admin.token }),
        400,
        'request.validation_failed',
        'id',
      );
    }
  });

  it('needs drive:space:view', async () => {
    const owner = await driveUser(t);
    const s = await space(t, tenantId, { type: 'team', ownerUserId: owner.userId });
    const none = await driveUser(t, { permissions: ['drive:node:view', 'drive:node:edit'] });
    expectError(await get(none.token, s.id), 403, 'auth.permission_denied');
  });
});

describe('PUT /api/drive/spaces/{id}', () => {
  it('changes only the fields sent and records space.update', async () => {
    const u = await driveUser(t);
    const id = (await post(u.token, { type: 'team', name: 'Before', description: 'keep', maxVersions: 5 })).json().data
      .id;
    const res = await put(u.token, id, {
      name: '  After ',
      defaultMemberRole: 'downloader',
      externalShareEnabled: false,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'After',
      description: 'keep',
      defaultMemberRole: 'downloader',
      externalShareEnabled: false,
      maxVersions: 5,
    });
    const back = await put(u.token, id, { defaultMemberRole: null, maxVersions: null });
    expect(back.json().data).toMatchObject({ defaultMemberRole: null, maxVersions: 50, name: 'After' });
    const acts = await activitiesOf(id, 'space.update');
    expect(acts.map((a) => a.detail)).toEqual([
      { fields: ['name', 'defaultMemberRole', 'externalShareEnabled'] },
      { fields: ['defaultMemberRole', 'maxVersions'] },
    ]);
  });

  it('ignores fields that are not settings of a space (the owner cannot be changed this way)', async () => {
    const u = await driveUser(t);
    const thief = await driveUser(t);
    const id = (await post(u.token, { type: 'team', name: 'Mine' })).json().data.id;
    const res = await put(u.token, id, {
      ownerUserId: thief.userId,
      usedBytes: 0,
      type: 'personal',
      name: 'Still mine',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await rowById(t, driveSpaces, id)).toMatchObject({
      ownerUserId: u.userId,
      type: 'team',
      name: 'Still mine',
    });
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const u = await driveUser(t);
    const id = (await post(u.token, { type: 'team', name: 'Stable' })).json().data.id;
    const before = await rowById(t, driveSpaces, id);
    const acts = await rowCount(t, driveActivities);
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'n'.repeat(101) }, 'name'],
      [{ description: 5 }, 'description'],
      [{ defaultMemberRole: 'admin' }, 'defaultMemberRole'],
      [{ maxVersions: 0 }, 'maxVersions'],
      [{ maxVersions: '3' }, 'maxVersions'],
      [{ externalShareEnabled: null }, 'externalShareEnabled'],
    ] as [object, string][]) {
      expectError(await put(u.token, id, body), 400, 'request.validation_failed', field);
    }
    expect(await rowById(t, driveSpaces, id)).toEqual(before);
    expect(await rowCount(t, driveActivities)).toBe(acts);
  });

  it('lets only drive administrators change the quota', async () => {
    const u = await driveUser(t);
    const id = (await post(u.token, { type: 'team', name: 'Q' })).json().data.id;
    expectError(await put(u.token, id, { quotaBytes: 0 }), 403, 'drive.admin_required', 'quotaBytes');
    expect((await rowById(t, driveSpaces, id))?.quotaBytes).toBeNull();
    const res = await put(admin.token, id, { quotaBytes: 2 * GB });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.quotaBytes).toBe(2 * GB);
    expect((await put(admin.token, id, { quotaBytes: null })).json().data.quotaBytes).toBe(50 * GB);
  });

  it('refuses a default member role on a personal space', async () => {
    const u = await driveUser(t);
    const personal = (await list(u.token, '?type=personal')).json().data.list[0];
    expectError(await put(u.token, personal.id, { defaultMemberRole: 'viewer' }), 400, 'drive.personal_space');
    const renamed = await put(u.token, personal.id, { name: 'My drive' });
    expect(renamed.json().data).toMatchObject({ name: 'My drive', defaultMemberRole: null });
  });

  it('needs the manager role: a viewer or editor member gets 403 drive.role_too_low; a stranger 404', async () => {
    const owner = await driveUser(t);
    const viewer = await driveUser(t);
    const editor = await driveUser(t);
    const stranger = await driveUser(t);
    const id = (await post(owner.token, { type: 'team', name: 'Guarded' })).json().data.id;
    await t.database.db.insert(driveSpaceMembers).values([
      { tenantId, spaceId: id, subjectType: 'user', subjectId: viewer.userId, role: 'viewer' },
      { tenantId, spaceId: id, subjectType: 'user', subjectId: editor.userId, role: 'editor' },
    ]);
    expectError(await put(viewer.token, id, { name: 'Hacked' }), 403, 'drive.role_too_low');
    expectError(await put(editor.token, id, { name: 'Hacked' }), 403, 'drive.role_too_low');
    expectError(await put(stranger.token, id, { name: 'Hacked' }), 404, 'drive.space_not_found');
    expect((await rowById(t, driveSpaces, id))?.name).toBe('Guarded');
    // a manager member may
    await t.database.db
      .update(driveSpaceMembers)
      .set({ role: 'manager' })
      .where(eq(driveSpaceMembers.subjectId, editor.userId));
    expect((await put(editor.token, id, { name: 'Managed' })).json().data.name).toBe('Managed');
  });

  it("answers 404 for another tenant's space and leaves it unchanged; needs drive:space:edit", async () => {
    const foreign = await space(t, other.tenantId, { type: 'team', name: 'Theirs' });
    expectError(await put(admin.token, foreign.id, { name: 'Ours' }), 404, 'drive.space_not_found');
    expect((await rowById(t, driveSpaces, foreign.id))?.name).toBe('Theirs');
    const own = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId, name: 'View only' });
    expectError(await put(viewOnly.token, own.id, { name: 'x' }), 403, 'auth.permission_denied');
    expect((await rowById(t, driveSpaces, own.id))?.name).toBe('View only');
  });
});
