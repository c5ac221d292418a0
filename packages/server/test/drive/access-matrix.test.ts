import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriveCaller } from '../../src/modules/drive/access/access-service.ts';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { type DriveOperation, OPERATION_ROLE } from '../../src/modules/drive/roles.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { type DriveRole, driveSpaceMembers } from '../../src/modules/drive/tables.ts';
import { users } from '../../src/modules/identity/tables.ts';
import { PLATFORM_TENANT_ID } from '../../src/platform/db/tenant-key.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { DRIVE_USER, type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';
import { callerOf, grant, plainRole, userGroup } from './permissions-helpers.ts';

/**
 * The effective role of spec §5.5, end to end: the role matrix per operation, grants and their
 * expiry, inheritance and its breaks, the four subject types, administrators, and the space
 * role sources of each space type. The gate is `access.authorizeNode` (every node operation of
 * every area goes through it) and, for this area's routes, HTTP.
 */
const ROLES: DriveRole[] = ['viewer', 'downloader', 'editor', 'manager'];
/** §5.5's table, written out (not derived from roles.ts) */
const VIEWER: DriveOperation[] = ['browse', 'preview'];
const DOWNLOADER: DriveOperation[] = [...VIEWER, 'download', 'zip'];
const EDITOR: DriveOperation[] = [
  ...DOWNLOADER,
  'upload',
  'create',
  'rename',
  'move',
  'copy',
  'delete',
  'restore',
  'version',
  'share',
  'lock',
];
const MANAGER: DriveOperation[] = [
  ...EDITOR,
  'grant',
  'inherit',
  'purge',
  'manageLinks',
  'members',
  'breakLock',
  'archive',
  'space',
  'deleteSpace',
];
const ALLOWED: Record<DriveRole, DriveOperation[]> = {
  viewer: VIEWER,
  downloader: DOWNLOADER,
  editor: EDITOR,
  manager: MANAGER,
};

let t: TestApp;
let a: TenantFixture;
let owner: DriveUser;
let team: SpaceRow;

const access = () => t.app.drive.core.access;
const user = (opts: { departmentId?: number; permissions?: string[] } = {}) =>
  driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, ...opts });
const callerFor = (u: { userId: number }, permissions = DRIVE_USER) =>
  callerOf(t, a.tenantId, u.userId, { permissions });
const roleOf = async (u: { userId: number } | DriveCaller, node: NodeRow, sp: SpaceRow) =>
  access().nodeRole('scope' in u ? u : await callerFor(u), node, sp);

/** What the gate answers for an operation: 'ok', or the error's status and key. */
async function gate(c: DriveCaller, nodeId: number, op: DriveOperation): Promise<string> {
  try {
    await access().authorizeNode(c, nodeId, op);
    return 'ok';
  } catch (err) {
    const e = err as { status?: number; key?: string };
    return `${e.status} ${e.key}`;
  }
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  owner = await user();
  team = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: null });
});
afterAll(async () => t?.close());

describe('the §5.5 role matrix', () => {
  it('names every operation of roles.ts in the table', () => {
    expect(Object.keys(OPERATION_ROLE).sort()).toEqual([...MANAGER].sort());
  });

  it.each(ROLES)('%s granted on a folder: each operation allowed or refused on it and below it', async (role) => {
    const f = await folder(t, a.tenantId, team.id, null, `Matrix ${role}`);
    const inner = await folder(t, a.tenantId, team.id, f, 'inner');
    const doc = await file(t, a.tenantId, team.id, inner, 'doc.txt');
    const u = await user();
    await grant(t, a.tenantId, f, { type: 'user', id: u.userId }, role);
    const c = await callerFor(u);
    for (const target of [f, doc]) {
      const got: Record<string, string> = {};
      const want: Record<string, string> = {};
      for (const op of Object.keys(OPERATION_ROLE) as DriveOperation[]) {
        got[op] = await gate(c, target.id, op);
        want[op] = ALLOWED[role].includes(op) ? 'ok' : '403 drive.role_too_low';
      }
      expect(got, `${role} on ${target.name}`).toEqual(want);
    }
    const { role: held } = await access().authorizeNode(c, doc.id, 'browse');
    expect(held).toBe(role);

    // this area's routes: list, self-explanation and activities for every role; grant and inherit for managers
    const list = await call(t.app, 'GET', `/api/drive/nodes/${doc.id}/permissions`, { token: u.token });
    expect(list.statusCode, list.body).toBe(200);
    const self = await call(t.app, 'GET', `/api/drive/nodes/${doc.id}/access`, { token: u.token });
    expect(self.json().data.role).toBe(role);
    expect((await call(t.app, 'GET', `/api/drive/nodes/${doc.id}/activities`, { token: u.token })).statusCode).toBe(
      200,
    );
    const granted = await call(t.app, 'POST', `/api/drive/nodes/${doc.id}/permissions`, {
      token: u.token,
      body: { subjectType: 'user', subjectId: owner.userId, role: 'viewer' },
    });
    const inherit = await call(t.app, 'PUT', `/api/drive/nodes/${doc.id}/inherit`, {
      token: u.token,
      body: { inherit: true },
    });
    if (role === 'manager') {
      expect(granted.statusCode, granted.body).toBe(201);
      expect(inherit.statusCode, inherit.body).toBe(200);
    } else {
      expectError(granted, 403, 'drive.role_too_low');
      expectError(inherit, 403, 'drive.role_too_low');
    }
  });

  it('no role, or only an expired grant, is no node at all (404) for every operation', async () => {
    const f = await folder(t, a.tenantId, team.id, null, 'Nobody');
    const none = await user();
    const lapsed = await user();
    await grant(t, a.tenantId, f, { type: 'user', id: lapsed.userId }, 'manager', new Date(Date.now() - 1000));
    for (const u of [none, lapsed]) {
      const c = await callerFor(u);
      for (const op of Object.keys(OPERATION_ROLE) as DriveOperation[]) {
        expect(await gate(c, f.id, op), op).toBe('404 drive.node_not_found');
      }
      expectError(
        await call(t.app, 'GET', `/api/drive/nodes/${f.id}/permissions`, { token: u.token }),
        404,
        'drive.node_not_found',
      );
      expectError(
        await call(t.app, 'GET', `/api/drive/nodes/${f.id}/activities`, { token: u.token }),
        404,
        'drive.node_not_found',
      );
    }
    // a grant still running applies until it runs out
    const soon = await user();
    await grant(t, a.tenantId, f, { type: 'user', id: soon.userId }, 'editor', new Date(Date.now() + 60_000));
    expect(await roleOf(soon, f, team)).toBe('editor');
  });
});

describe('inheritance', () => {
  it('a grant reaches a file three levels down; a break between cuts it and the space role; restore and copy bring it back', async () => {
    const sp = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: 'viewer' });
    const l1 = await folder(t, a.tenantId, sp.id, null, 'L1');
    const l2 = await folder(t, a.tenantId, sp.id, l1, 'L2');
    const l3 = await folder(t, a.tenantId, sp.id, l2, 'L3');
    const f = await file(t, a.tenantId, sp.id, l3, 'deep.txt');
    const g = await user();
    const anyone = await user();
    await grant(t, a.tenantId, l1, { type: 'user', id: g.userId }, 'editor');
    const fresh = async (n: NodeRow) =>
      (await t.app.drive.core.access.authorizeNode(await callerFor(owner), n.id, 'browse')).node;
    expect(await roleOf(g, f, sp)).toBe('editor');
    expect(await roleOf(anyone, f, sp)).toBe('viewer');

    const put = (body: object) => call(t.app, 'PUT', `/api/drive/nodes/${l2.id}/inherit`, { token: owner.token, body });
    expect((await put({ inherit: false, copyInherited: false })).statusCode).toBe(200);
    expect(await roleOf(g, await fresh(f), sp)).toBeNull();
    expect(await roleOf(anyone, await fresh(f), sp)).toBeNull();
    expect(await roleOf(anyone, await fresh(l1), sp)).toBe('viewer');
    expect(await gate(await callerFor(g), f.id, 'browse')).toBe('404 drive.node_not_found');
    expect(await roleOf(owner, await fresh(f), sp)).toBe('manager');

    expect((await put({ inherit: true })).statusCode).toBe(200);
    expect(await roleOf(g, await fresh(f), sp)).toBe('editor');
    expect(await roleOf(anyone, await fresh(f), sp)).toBe('viewer');

    expect((await put({ inherit: false })).statusCode).toBe(200); // copyInherited by default
    expect(await roleOf(g, await fresh(f), sp)).toBe('editor');
    expect(await roleOf(anyone, await fresh(f), sp)).toBeNull();
  });
});

describe('subjects', () => {
  it('a department grant reaches the members of its sub-departments, not of its parent', async () => {
    const top = await department(t, a.tenantId, { name: 'Top' });
    const mid = await department(t, a.tenantId, { name: 'Mid', parent: top });
    const leaf = await department(t, a.tenantId, {
      name: 'Leaf',
      parent: { id: mid.id, ancestorIds: mid.ancestorIds },
    });
    const f = await folder(t, a.tenantId, team.id, null, 'Dept grant');
    await grant(t, a.tenantId, f, { type: 'department', id: mid.id }, 'downloader');
    const inLeaf = await user({ departmentId: leaf.id });
    const inMid = await user({ departmentId: mid.id });
    const inTop = await user({ departmentId: top.id });
    expect(await roleOf(inLeaf, f, team)).toBe('downloader');
    expect(await roleOf(inMid, f, team)).toBe('downloader');
    expect(await roleOf(inTop, f, team)).toBeNull();
  });

  it('a role grant reaches its holders, a user-group grant its members; the best grant wins', async () => {
    const f = await folder(t, a.tenantId, team.id, null, 'Role and group');
    const inner = await folder(t, a.tenantId, team.id, f, 'inner');
    const [r1, g1, both, neither] = [await user(), await user(), await user(), await user()];
    const role = await plainRole(t, a.tenantId, [r1.userId, both.userId]);
    const group = await userGroup(t, a.tenantId, [g1.userId, both.userId]);
    await grant(t, a.tenantId, f, { type: 'role', id: role.id }, 'viewer');
    await grant(t, a.tenantId, inner, { type: 'group', id: group.id }, 'editor');
    expect(await roleOf(r1, inner, team)).toBe('viewer');
    expect(await roleOf(g1, inner, team)).toBe('editor');
    expect(await roleOf(g1, f, team)).toBeNull(); // a grant reaches down, not up
    expect(await roleOf(both, inner, team)).toBe('editor');
    expect(await roleOf(neither, inner, team)).toBeNull();
  });
});

describe('administrators are managers in every space', () => {
  it('a super administrator working inside the tenant, and a holder of drive:admin:space:edit', async () => {
    const [superAdmin] = await t.database.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.tenantId, PLATFORM_TENANT_ID), eq(users.isSuper, true)));
    const lonely = await space(t, a.tenantId, { type: 'personal', ownerUserId: owner.userId });
    const f = await folder(t, a.tenantId, lonely.id, null, 'Private');
    const sup = await callerOf(t, a.tenantId, superAdmin?.id as number, { isSuper: true, userTenantId: null });
    expect(await gate(sup, f.id, 'purge')).toBe('ok');
    // through HTTP: the platform administrator's token with X-Tenant-Id
    const list = await call(t.app, 'GET', `/api/drive/nodes/${f.id}/permissions`, {
      token: t.adminToken,
      tenantId: a.tenantId,
    });
    expect(list.statusCode, list.body).toBe(200);
    const why = await call(t.app, 'GET', `/api/drive/nodes/${f.id}/access`, {
      token: t.adminToken,
      tenantId: a.tenantId,
    });
    expect(why.json().data).toMatchObject({
      role: 'manager',
      summary: 'manager — from drive administrator (manager in every space)',
    });

    const admin = await user({ permissions: [...DRIVE_USER, 'drive:admin:space:edit'] });
    const res = await call(t.app, 'POST', `/api/drive/nodes/${f.id}/permissions`, {
      token: admin.token,
      body: { subjectType: 'user', subjectId: admin.userId, role: 'viewer' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(await gate(await callerFor(admin, ['drive:admin:space:edit']), f.id, 'inherit')).toBe('ok');
    // the same user without the permission: only the viewer grant just made
    expect(await gate(await callerFor(admin, DRIVE_USER), f.id, 'download')).toBe('403 drive.role_too_low');
  });
});

describe('space role sources per space type', () => {
  it('personal: the owner is manager; members rows do not count; others need grants', async () => {
    const me = await user();
    const friend = await user();
    const sp = await space(t, a.tenantId, { type: 'personal', ownerUserId: me.userId, defaultMemberRole: 'editor' });
    await t.database.db
      .insert(driveSpaceMembers)
      .values({ tenantId: a.tenantId, spaceId: sp.id, subjectType: 'user', subjectId: friend.userId, role: 'manager' });
    const f = await folder(t, a.tenantId, sp.id, null, 'Mine');
    expect(await roleOf(me, f, sp)).toBe('manager');
    expect(await roleOf(friend, f, sp)).toBeNull();
    await grant(t, a.tenantId, f, { type: 'user', id: friend.userId }, 'downloader');
    expect(await roleOf(friend, f, sp)).toBe('downloader');
  });

  it("department: the head is manager, members and sub-departments' get the default role, the members table raises", async () => {
    const head = await user();
    const dept = await department(t, a.tenantId, { name: 'Finance', headUserId: head.userId });
    const subDept = await department(t, a.tenantId, { name: 'Payroll', parent: dept });
    const sp = await space(t, a.tenantId, { type: 'department', departmentId: dept.id, defaultMemberRole: 'viewer' });
    const f = await folder(t, a.tenantId, sp.id, null, 'Budgets');
    const [m, s, raised, outside] = [
      await user({ departmentId: dept.id }),
      await user({ departmentId: subDept.id }),
      await user({ departmentId: subDept.id }),
      await user(),
    ];
    await t.database.db
      .insert(driveSpaceMembers)
      .values({ tenantId: a.tenantId, spaceId: sp.id, subjectType: 'user', subjectId: raised.userId, role: 'editor' });
    expect(await roleOf(head, f, sp)).toBe('manager');
    expect(await roleOf(m, f, sp)).toBe('viewer');
    expect(await roleOf(s, f, sp)).toBe('viewer');
    expect(await roleOf(raised, f, sp)).toBe('editor');
    expect(await roleOf(outside, f, sp)).toBeNull();
    // no default role: members of the department have none of their own
    const quiet = await space(t, a.tenantId, { type: 'department', departmentId: subDept.id, defaultMemberRole: null });
    const q = await folder(t, a.tenantId, quiet.id, null, 'Quiet');
    expect(await roleOf(s, q, quiet)).toBeNull();
  });

  it('team: the owner is manager; the default role reaches every signed-in user; without it, members only', async () => {
    const boss = await user();
    const [anyone, grouped] = [await user(), await user()];
    const open = await space(t, a.tenantId, {
      type: 'team',
      ownerUserId: boss.userId,
      defaultMemberRole: 'downloader',
    });
    const closed = await space(t, a.tenantId, { type: 'team', ownerUserId: boss.userId, defaultMemberRole: null });
    const g = await userGroup(t, a.tenantId, [grouped.userId]);
    await t.database.db
      .insert(driveSpaceMembers)
      .values({ tenantId: a.tenantId, spaceId: closed.id, subjectType: 'group', subjectId: g.id, role: 'editor' });
    const fo = await folder(t, a.tenantId, open.id, null, 'Open');
    const fc = await folder(t, a.tenantId, closed.id, null, 'Closed');
    expect(await roleOf(boss, fo, open)).toBe('manager');
    expect(await roleOf(anyone, fo, open)).toBe('downloader');
    expect(await roleOf(boss, fc, closed)).toBe('manager');
    expect(await roleOf(anyone, fc, closed)).toBeNull();
    expect(await roleOf(grouped, fc, closed)).toBe('editor');
  });
});
