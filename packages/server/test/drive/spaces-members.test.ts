import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities, driveSpaceMembers } from '../../src/modules/drive/tables.ts';
import { userGroupMembers, userGroups, userRoles } from '../../src/modules/identity/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { DRIVE_USER, type DriveUser, department, driveUser, space } from './drive-fixtures.ts';

/**
 * /api/drive/spaces/{id}/members (spec §2.2, §5.5): any space role lists them, a manager adds,
 * changes and removes them; the users a new member stands for are told (drive.space.joined).
 */
let t: TestApp;
let tenantId: number;
let other: TenantFixture;
let viewOnly: DriveUser;
beforeAll(async () => {
  t = await createTestApp();
  tenantId = t.demoTenantId;
  ({ other } = await twoTenants(t));
  viewOnly = await driveUser(t, { permissions: ['drive:space:view'] });
});
afterAll(async () => t?.close());

const url = (spaceId: number, memberId?: number) =>
  `/api/drive/spaces/${spaceId}/members${memberId === undefined ? '' : `/${memberId}`}`;
const add = (token: string, spaceId: number, body: unknown) => call(t.app, 'POST', url(spaceId), { token, body });
const teamOf = async (owner: DriveUser) =>
  (await call(t.app, 'POST', '/api/drive/spaces', { token: owner.token, body: { type: 'team', name: 'Crew' } })).json()
    .data.id as number;
const counts = async () => ({
  members: await rowCount(t, driveSpaceMembers),
  activities: await rowCount(t, driveActivities),
  outbox: await rowCount(t, notificationOutbox),
});
const joinedNotices = (spaceId: number) =>
  t.database.db
    .select()
    .from(notificationOutbox)
    .where(eq(notificationOutbox.eventKey, 'drive.space.joined'))
    .orderBy(notificationOutbox.id)
    .then((rows) => rows.filter((r) => r.input.link === `/drive?space=${spaceId}`));

describe('POST /api/drive/spaces/{id}/members', () => {
  it('adds a user, a department, a role and a group; tells the users they stand for, after the commit', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const alice = await driveUser(t);

    const res = await add(owner.token, id, { subjectType: 'user', subjectId: alice.userId, role: 'editor' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({
      spaceId: id,
      subjectType: 'user',
      subjectId: alice.userId,
      subjectName: alice.username,
      role: 'editor',
      createdBy: owner.userId,
    });
    const [notice] = await joinedNotices(id);
    expect(notice?.input.recipients).toEqual([{ type: 'user', id: alice.userId }]);
    expect(notice?.input.variables).toEqual({ spaceName: 'Crew', role: 'editor', actorName: owner.username });
    const [entry] = await t.database.db
      .select()
      .from(driveActivities)
      .where(and(eq(driveActivities.spaceId, id), eq(driveActivities.action, 'member.add')));
    expect(entry).toMatchObject({
      actorUserId: owner.userId,
      detail: { type: 'user', id: alice.userId, role: 'editor' },
    });
    expect((await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: alice.token })).json().data.myRole).toBe(
      'editor',
    );

    // a department stands for its members and those of its sub-departments (the actor is not told)
    const dept = await department(t, tenantId, { name: 'Ops' });
    const sub = await department(t, tenantId, { parent: dept });
    const inDept = await driveUser(t, { departmentId: dept.id });
    const inSub = await driveUser(t, { departmentId: sub.id });
    const byDept = await add(owner.token, id, { subjectType: 'department', subjectId: dept.id, role: 'viewer' });
    expect(byDept.json().data).toMatchObject({ subjectName: 'Ops', role: 'viewer' });
    const deptNotice = (await joinedNotices(id)).find((n) => n.input.variables.role === 'viewer');
    const told = (deptNotice?.input.recipients ?? []) as { id: number }[];
    expect(told.map((r) => r.id).sort((a, b) => a - b)).toEqual([inDept.userId, inSub.userId].sort((a, b) => a - b));

    const [group] = await t.database.db
      .insert(userGroups)
      .values({ tenantId, name: `crew-${id}` })
      .returning();
    await t.database.db
      .insert(userGroupMembers)
      .values({ tenantId, groupId: group?.id as number, userId: alice.userId });
    const byGroup = await add(owner.token, id, { subjectType: 'group', subjectId: group?.id, role: 'downloader' });
    expect(byGroup.json().data).toMatchObject({ subjectType: 'group', subjectName: `crew-${id}` });

    const roleHolder = await driveUser(t);
    const [held] = await t.database.db.select().from(userRoles).where(eq(userRoles.userId, roleHolder.userId));
    const byRole = await add(owner.token, id, { subjectType: 'role', subjectId: held?.roleId, role: 'editor' });
    expect(byRole.json().data).toMatchObject({ subjectType: 'role', subjectName: `Role of ${roleHolder.username}` });
    const roleNotice = (await joinedNotices(id)).at(-1);
    expect(roleNotice?.input.recipients).toEqual([{ type: 'user', id: roleHolder.userId }]);
    expect((await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: roleHolder.token })).json().data.myRole).toBe(
      'editor',
    );
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const before = await counts();
    for (const [body, field] of [
      [{ subjectId: 1, role: 'viewer' }, 'subjectType'],
      [{ subjectType: 'team', subjectId: 1, role: 'viewer' }, 'subjectType'],
      [{ subjectType: 'user', role: 'viewer' }, 'subjectId'],
      [{ subjectType: 'user', subjectId: 0, role: 'viewer' }, 'subjectId'],
      [{ subjectType: 'user', subjectId: '5', role: 'viewer' }, 'subjectId'],
      [{ subjectType: 'user', subjectId: 2_147_483_648, role: 'viewer' }, 'subjectId'],
      [{ subjectType: 'user', subjectId: owner.userId }, 'role'],
      [{ subjectType: 'user', subjectId: owner.userId, role: 'owner' }, 'role'],
      [{ subjectType: 'user', subjectId: owner.userId, role: null }, 'role'],
    ] as [object, string][]) {
      expectError(await add(owner.token, id, body), 400, 'request.validation_failed', field);
    }
    // subjects that do not exist in this tenant
    const foreignDept = await department(t, other.tenantId);
    for (const [subjectType, subjectId] of [
      ['user', other.adminUserId],
      ['user', 2_000_000_000],
      ['department', foreignDept.id],
      ['role', 2_000_000_000],
      ['group', 2_000_000_000],
    ] as const) {
      expectError(
        await add(owner.token, id, { subjectType, subjectId, role: 'viewer' }),
        400,
        'drive.subject_not_found',
        'subjectId',
      );
    }
    expect(await counts()).toEqual(before);
  });

  it('refuses a duplicate subject with 409 drive.member_exists', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const bob = await driveUser(t);
    expect(
      (await add(owner.token, id, { subjectType: 'user', subjectId: bob.userId, role: 'viewer' })).statusCode,
    ).toBe(201);
    const before = await counts();
    const dup = await add(owner.token, id, { subjectType: 'user', subjectId: bob.userId, role: 'manager' });
    expectError(dup, 409, 'drive.member_exists', 'subjectId');
    expect(await counts()).toEqual(before);
    // concurrent adds of one subject: one wins, the others are 409s
    const carol = await driveUser(t);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        add(owner.token, id, { subjectType: 'user', subjectId: carol.userId, role: 'viewer' }),
      ),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('refuses members of a personal space (400)', async () => {
    const owner = await driveUser(t);
    const friend = await driveUser(t);
    const personal = (await call(t.app, 'GET', '/api/drive/spaces?type=personal', { token: owner.token })).json().data
      .list[0].id;
    const before = await counts();
    expectError(
      await add(owner.token, personal, { subjectType: 'user', subjectId: friend.userId, role: 'viewer' }),
      400,
      'drive.personal_space',
    );
    expect(await counts()).toEqual(before);
  });

  it('needs the manager role (a viewer or editor 403 drive.role_too_low), the space (404 otherwise) and drive:space:edit', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const viewer = await driveUser(t);
    const editor = await driveUser(t);
    await add(owner.token, id, { subjectType: 'user', subjectId: viewer.userId, role: 'viewer' });
    await add(owner.token, id, { subjectType: 'user', subjectId: editor.userId, role: 'editor' });
    const target = await driveUser(t);
    const body = { subjectType: 'user', subjectId: target.userId, role: 'manager' };
    const before = await counts();
    expectError(await add(viewer.token, id, body), 403, 'drive.role_too_low');
    expectError(await add(editor.token, id, body), 403, 'drive.role_too_low');
    expectError(await add(target.token, id, body), 404, 'drive.space_not_found');
    const foreign = await space(t, other.tenantId, { type: 'team', defaultMemberRole: 'manager' });
    expectError(await add(owner.token, foreign.id, body), 404, 'drive.space_not_found');
    const mine = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId });
    expectError(await add(viewOnly.token, mine.id, body), 403, 'auth.permission_denied');
    expect(await counts()).toEqual(before);
  });
});

describe('GET /api/drive/spaces/{id}/members', () => {
  it('lists the members with their names for any space role, by page', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const viewer = await driveUser(t);
    const dept = await department(t, tenantId, { name: 'Legal' });
    await add(owner.token, id, { subjectType: 'user', subjectId: viewer.userId, role: 'viewer' });
    await add(owner.token, id, { subjectType: 'department', subjectId: dept.id, role: 'editor' });

    const res = await call(t.app, 'GET', url(id), { token: viewer.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ total: 2, page: 1, pageSize: 20 });
    expect(
      res
        .json()
        .data.list.map((m: { subjectType: string; subjectName: string; role: string }) => [
          m.subjectType,
          m.subjectName,
          m.role,
        ]),
    ).toEqual([
      ['user', viewer.username, 'viewer'],
      ['department', 'Legal', 'editor'],
    ]);
    const page2 = await call(t.app, 'GET', `${url(id)}?page=2&pageSize=1`, { token: owner.token });
    expect(page2.json().data.list.map((m: { subjectName: string }) => m.subjectName)).toEqual(['Legal']);
    expectError(
      await call(t.app, 'GET', `${url(id)}?pageSize=0`, { token: owner.token }),
      400,
      'request.validation_failed',
      'pageSize',
    );
  });

  it('answers 404 without a space role or for another tenant, and needs drive:space:view', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    expectError(await call(t.app, 'GET', url(id), { token: (await driveUser(t)).token }), 404, 'drive.space_not_found');
    const foreign = await space(t, other.tenantId, { type: 'team', defaultMemberRole: 'viewer' });
    expectError(await call(t.app, 'GET', url(foreign.id), { token: owner.token }), 404, 'drive.space_not_found');
    const none = await driveUser(t, { permissions: ['drive:node:view'] });
    const open = await space(t, tenantId, { type: 'team', defaultMemberRole: 'viewer' });
    expectError(await call(t.app, 'GET', url(open.id), { token: none.token }), 403, 'auth.permission_denied');
  });
});

describe('PUT and DELETE /api/drive/spaces/{id}/members/{memberId}', () => {
  it("changes a member's role and removes a member, recording each", async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const dana = await driveUser(t);
    const memberId = (
      await add(owner.token, id, { subjectType: 'user', subjectId: dana.userId, role: 'viewer' })
    ).json().data.id;

    const res = await call(t.app, 'PUT', url(id, memberId), { token: owner.token, body: { role: 'manager' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: memberId, role: 'manager', subjectName: dana.username });
    expect((await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: dana.token })).json().data.myRole).toBe(
      'manager',
    );

    const gone = await call(t.app, 'DELETE', url(id, memberId), { token: owner.token });
    expect(gone.statusCode, gone.body).toBe(200);
    expect(gone.json().data).toEqual({ ok: true });
    expect(await rowById(t, driveSpaceMembers, memberId)).toBeUndefined();
    expectError(
      await call(t.app, 'GET', `/api/drive/spaces/${id}`, { token: dana.token }),
      404,
      'drive.space_not_found',
    );
    const acts = await t.database.db.select().from(driveActivities).where(eq(driveActivities.spaceId, id));
    expect(acts.map((a) => a.action).filter((a) => a.startsWith('member.'))).toEqual([
      'member.add',
      'member.update',
      'member.remove',
    ]);
  });

  it('refuses bad input naming the field, a member of another space (404), and changes nothing', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const otherSpace = await teamOf(owner);
    const eve = await driveUser(t);
    const memberId = (
      await add(owner.token, otherSpace, { subjectType: 'user', subjectId: eve.userId, role: 'viewer' })
    ).json().data.id;
    const before = await counts();
    for (const [body, field] of [
      [{}, 'role'],
      [{ role: 'boss' }, 'role'],
    ] as [object, string][]) {
      expectError(
        await call(t.app, 'PUT', url(otherSpace, memberId), { token: owner.token, body }),
        400,
        'request.validation_failed',
        field,
      );
    }
    expectError(
      await call(t.app, 'PUT', `/api/drive/spaces/${id}/members/0`, { token: owner.token, body: { role: 'viewer' } }),
      400,
      'request.validation_failed',
      'memberId',
    );
    expectError(
      await call(t.app, 'PUT', url(id, memberId), { token: owner.token, body: { role: 'manager' } }),
      404,
      'drive.member_not_found',
    );
    expectError(await call(t.app, 'DELETE', url(id, memberId), { token: owner.token }), 404, 'drive.member_not_found');
    expect(await counts()).toEqual(before);
    expect((await rowById(t, driveSpaceMembers, memberId))?.role).toBe('viewer');
  });

  it('needs the manager role, the tenant and drive:space:edit', async () => {
    const owner = await driveUser(t);
    const id = await teamOf(owner);
    const viewer = await driveUser(t);
    const memberId = (
      await add(owner.token, id, { subjectType: 'user', subjectId: viewer.userId, role: 'viewer' })
    ).json().data.id;
    expectError(
      await call(t.app, 'PUT', url(id, memberId), { token: viewer.token, body: { role: 'manager' } }),
      403,
      'drive.role_too_low',
    );
    expectError(await call(t.app, 'DELETE', url(id, memberId), { token: viewer.token }), 403, 'drive.role_too_low');

    const foreign = await space(t, other.tenantId, { type: 'team' });
    const [foreignMember] = await t.database.db
      .insert(driveSpaceMembers)
      .values({
        tenantId: other.tenantId,
        spaceId: foreign.id,
        subjectType: 'user',
        subjectId: other.adminUserId,
        role: 'viewer',
      })
      .returning();
    const admin = await driveUser(t, { permissions: [...DRIVE_USER, 'drive:admin:space:edit'] });
    expectError(
      await call(t.app, 'PUT', url(foreign.id, foreignMember?.id), { token: admin.token, body: { role: 'manager' } }),
      404,
      'drive.space_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', url(foreign.id, foreignMember?.id), { token: admin.token }),
      404,
      'drive.space_not_found',
    );
    expect((await rowById(t, driveSpaceMembers, foreignMember?.id as number))?.role).toBe('viewer');

    const mine = await space(t, tenantId, { type: 'team', ownerUserId: viewOnly.userId });
    const [own] = await t.database.db
      .insert(driveSpaceMembers)
      .values({ tenantId, spaceId: mine.id, subjectType: 'user', subjectId: viewer.userId, role: 'viewer' })
      .returning();
    expectError(
      await call(t.app, 'PUT', url(mine.id, own?.id), { token: viewOnly.token, body: { role: 'editor' } }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', url(mine.id, own?.id), { token: viewOnly.token }),
      403,
      'auth.permission_denied',
    );
    expect((await rowById(t, driveSpaceMembers, own?.id as number))?.role).toBe('viewer');
    expect((await rowById(t, driveSpaceMembers, memberId))?.role).toBe('viewer');
  });
});
