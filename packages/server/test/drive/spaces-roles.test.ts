import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveActivities, driveSpaceMembers, driveSpaces } from '../../src/modules/drive/tables.ts';
import { userGroupMembers, userGroups, userRoles } from '../../src/modules/identity/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { department, driveUser, space } from './drive-fixtures.ts';

/**
 * Spec §5.5's space-role sources per space type, as a user sees them: `myRole` of
 * GET /api/drive/spaces/{id} and whether the space is in "my spaces" (GET /api/drive/spaces).
 * Also the spaces made on first access: the personal space (once, however many first calls
 * race) and the department space (only when `departmentSpaceAutoCreate` is on).
 */
let t: TestApp;
let tenantId: number;
beforeAll(async () => {
  t = await createTestApp();
  tenantId = t.demoTenantId;
});
afterAll(async () => t?.close());

type SpaceItem = { id: number; type: string; myRole: string | null; name: string; departmentId: number | null };

/** The caller's role in a space: its role, or null when the space is not found for them (404). */
async function roleIn(token: string, spaceId: number): Promise<string | null> {
  const res = await call(t.app, 'GET', `/api/drive/spaces/${spaceId}`, { token });
  if (res.statusCode === 404) {
    expect(res.json().error).toBe('drive.space_not_found');
    return null;
  }
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.myRole;
}

async function mySpaces(token: string, query = ''): Promise<SpaceItem[]> {
  const res = await call(t.app, 'GET', `/api/drive/spaces?pageSize=200${query}`, { token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.list;
}

/** The role seen both ways: by id and in the list (absent from the list when there is none). */
async function expectRole(token: string, spaceId: number, role: string | null) {
  expect(await roleIn(token, spaceId)).toBe(role);
  const listed = (await mySpaces(token)).find((s) => s.id === spaceId);
  expect(listed?.myRole ?? null).toBe(role);
}

const member = (
  spaceId: number,
  subjectType: 'user' | 'department' | 'role' | 'group',
  subjectId: number,
  role: string,
) =>
  t.database.db.insert(driveSpaceMembers).values({
    tenantId,
    spaceId,
    subjectType,
    subjectId,
    role: role as 'viewer',
  });

describe('personal spaces', () => {
  it('the owner is manager; another user has no space role (404, not listed)', async () => {
    const owner = await driveUser(t);
    const other = await driveUser(t);
    const mine = (await mySpaces(owner.token)).filter((s) => s.type === 'personal');
    expect(mine).toHaveLength(1);
    const personal = mine[0] as SpaceItem;
    expect(personal).toMatchObject({ myRole: 'manager', name: `${owner.username}'s files` });
    await expectRole(owner.token, personal.id, 'manager');
    await expectRole(other.token, personal.id, null);
  });

  it('is created exactly once under 10 concurrent first calls, with one activity', async () => {
    const u = await driveUser(t);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(t.app, 'GET', '/api/drive/spaces', { token: u.token })),
    );
    const ids = new Set<number>();
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      const personal = res.json().data.list.filter((s: SpaceItem) => s.type === 'personal');
      expect(personal).toHaveLength(1);
      ids.add(personal[0].id);
    }
    expect(ids.size).toBe(1);
    const db = t.database.db;
    const [rows] = await db
      .select({ n: count() })
      .from(driveSpaces)
      .where(and(eq(driveSpaces.type, 'personal'), eq(driveSpaces.ownerUserId, u.userId)));
    expect(rows?.n).toBe(1);
    const [acts] = await db
      .select({ n: count() })
      .from(driveActivities)
      .where(and(eq(driveActivities.spaceId, [...ids][0] as number), eq(driveActivities.action, 'space.create')));
    expect(acts?.n).toBe(1);
  });
});

describe('department spaces', () => {
  it('head is manager; members of the department and sub-departments get defaultMemberRole; a member row raises one', async () => {
    const head = await driveUser(t);
    const dept = await department(t, tenantId, { headUserId: head.userId });
    const sub = await department(t, tenantId, { parent: dept });
    const inDept = await driveUser(t, { departmentId: dept.id });
    const inSub = await driveUser(t, { departmentId: sub.id });
    const raised = await driveUser(t, { departmentId: dept.id });
    const outsider = await driveUser(t);
    const s = await space(t, tenantId, { type: 'department', departmentId: dept.id, defaultMemberRole: 'downloader' });
    await member(s.id, 'user', raised.userId, 'editor');

    await expectRole(head.token, s.id, 'manager');
    await expectRole(inDept.token, s.id, 'downloader');
    await expectRole(inSub.token, s.id, 'downloader');
    await expectRole(raised.token, s.id, 'editor');
    await expectRole(outsider.token, s.id, null);

    // the space of the sub-department does not reach the parent department's members
    const subSpace = await space(t, tenantId, {
      type: 'department',
      departmentId: sub.id,
      defaultMemberRole: 'viewer',
    });
    await expectRole(inSub.token, subSpace.id, 'viewer');
    await expectRole(inDept.token, subSpace.id, null);
  });

  it('a null defaultMemberRole gives the department members no role; the head and member rows still count', async () => {
    const head = await driveUser(t);
    const dept = await department(t, tenantId, { headUserId: head.userId });
    const inDept = await driveUser(t, { departmentId: dept.id });
    const listed = await driveUser(t, { departmentId: dept.id });
    const s = await space(t, tenantId, { type: 'department', departmentId: dept.id, defaultMemberRole: null });
    await member(s.id, 'user', listed.userId, 'viewer');
    await expectRole(head.token, s.id, 'manager');
    await expectRole(inDept.token, s.id, null);
    await expectRole(listed.token, s.id, 'viewer');
  });
});

describe('team spaces', () => {
  it('the owner is manager; defaultMemberRole applies to every signed-in user', async () => {
    const owner = await driveUser(t);
    const anyone = await driveUser(t);
    const s = await space(t, tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: 'viewer' });
    await expectRole(owner.token, s.id, 'manager');
    await expectRole(anyone.token, s.id, 'viewer');
  });

  it('a null defaultMemberRole means members only: user, department (reaching sub-departments), role and group rows', async () => {
    const owner = await driveUser(t);
    const s = await space(t, tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: null });
    const db = t.database.db;

    const byUser = await driveUser(t);
    await member(s.id, 'user', byUser.userId, 'editor');

    const dept = await department(t, tenantId);
    const sub = await department(t, tenantId, { parent: dept });
    const inSub = await driveUser(t, { departmentId: sub.id });
    await member(s.id, 'department', dept.id, 'downloader');

    const byRole = await driveUser(t);
    const [role] = await db.select().from(userRoles).where(eq(userRoles.userId, byRole.userId));
    await member(s.id, 'role', role?.roleId as number, 'viewer');

    const byGroup = await driveUser(t);
    const [group] = await db
      .insert(userGroups)
      .values({ tenantId, name: `g-${byGroup.username}` })
      .returning();
    await db.insert(userGroupMembers).values({ tenantId, groupId: group?.id as number, userId: byGroup.userId });
    await member(s.id, 'group', group?.id as number, 'editor');

    const nobody = await driveUser(t);
    await expectRole(owner.token, s.id, 'manager');
    await expectRole(byUser.token, s.id, 'editor');
    await expectRole(inSub.token, s.id, 'downloader');
    await expectRole(byRole.token, s.id, 'viewer');
    await expectRole(byGroup.token, s.id, 'editor');
    await expectRole(nobody.token, s.id, null);

    // the best of several sources wins: the department's downloader and the user's own manager row
    await member(s.id, 'user', inSub.userId, 'manager');
    await expectRole(inSub.token, s.id, 'manager');
  });
});

describe('drive administrators', () => {
  it('are manager in a space they are not part of, which all=true lists but "my spaces" does not', async () => {
    const owner = await driveUser(t);
    const admin = await driveUser(t, {
      permissions: ['drive:space:view', 'drive:space:edit', 'drive:admin:space:edit'],
    });
    const s = await space(t, tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: null });
    expect(await roleIn(admin.token, s.id)).toBe('manager');
    expect((await mySpaces(admin.token)).some((x) => x.id === s.id)).toBe(false);
    const all = await mySpaces(admin.token, '&all=true');
    expect(all.find((x) => x.id === s.id)?.myRole).toBe('manager');

    // all=true is the administrators': a plain user is refused, and nothing is created for them
    const plain = await driveUser(t);
    const refused = await call(t.app, 'GET', '/api/drive/spaces?all=true', { token: plain.token });
    expectError(refused, 403, 'drive.admin_required', 'all');
    const [n] = await t.database.db
      .select({ n: count() })
      .from(driveSpaces)
      .where(eq(driveSpaces.ownerUserId, plain.userId));
    expect(n?.n).toBe(0);
  });
});

describe('the department space on first access', () => {
  const setAuto = async (value: boolean) => {
    const res = await call(t.app, 'PUT', '/api/settings/drive', {
      token: t.demoAdminToken,
      body: { departmentSpaceAutoCreate: value },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('is not created while the setting is off, and is created once (viewer for members) when it is on', async () => {
    const dept = await department(t, tenantId, { name: 'Research' });
    const u = await driveUser(t, { departmentId: dept.id });
    const colleague = await driveUser(t, { departmentId: dept.id });
    const departmentSpaces = () =>
      t.database.db
        .select()
        .from(driveSpaces)
        .where(and(eq(driveSpaces.type, 'department'), eq(driveSpaces.departmentId, dept.id)));

    await setAuto(false);
    expect((await mySpaces(u.token)).some((s) => s.type === 'department')).toBe(false);
    expect(await departmentSpaces()).toHaveLength(0);

    await setAuto(true);
    try {
      const listed = (await mySpaces(u.token)).filter((s) => s.type === 'department');
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ name: 'Research', departmentId: dept.id, myRole: 'viewer' });
      // the colleague's first access finds it: still one
      expect((await mySpaces(colleague.token)).filter((s) => s.type === 'department')).toHaveLength(1);
      const rows = await departmentSpaces();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ defaultMemberRole: 'viewer', ownerUserId: null, createdBy: u.userId });

      // a user without a department gets only the personal space
      const loner = await driveUser(t);
      expect((await mySpaces(loner.token)).filter((s) => s.type !== 'team').map((s) => s.type)).toEqual(['personal']);
    } finally {
      await setAuto(false);
    }
  });
});
