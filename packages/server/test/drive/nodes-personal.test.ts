import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveNodeStars, driveNodes, driveRecentAccess, driveSpaceMembers } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createUserWithPermissions, type TenantFixture, twoTenants } from '../helpers/fixtures.ts';
import { type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';
import { grant, member, names, ok } from './nodes-fixtures.ts';

let t: TestApp;
let tenantId: number;
let owner: DriveUser;
let reader: DriveUser;
let outsider: DriveUser;
let noView: { token: string };
let other: TenantFixture;
let s: SpaceRow;

beforeAll(async () => {
  t = await createTestApp();
  tenantId = t.demoTenantId;
  owner = await driveUser(t);
  reader = await driveUser(t);
  outsider = await driveUser(t);
  noView = await createUserWithPermissions(t, ['drive:space:view']);
  ({ other } = await twoTenants(t));
  s = await space(t, tenantId, { ownerUserId: owner.userId });
  await member(t, tenantId, s.id, { type: 'user', id: reader.userId }, 'viewer');
});
afterAll(async () => t?.close());

const deleteNode = (id: number) =>
  t.database.db.update(driveNodes).set({ deletedAt: new Date(), trashRootId: id }).where(eq(driveNodes.id, id));

describe('stars', () => {
  it('PUT and DELETE /api/drive/nodes/:id/star are idempotent and personal; the listing shows my star only', async () => {
    const f = await file(t, tenantId, s.id, null, 'star-me.txt');
    const starsOf = () => t.database.db.select().from(driveNodeStars).where(eq(driveNodeStars.nodeId, f.id));
    expect(await ok(t, 'PUT', `/api/drive/nodes/${f.id}/star`, reader.token)).toEqual({ ok: true });
    expect(await ok(t, 'PUT', `/api/drive/nodes/${f.id}/star`, reader.token)).toEqual({ ok: true });
    expect((await starsOf()).map((r) => r.userId)).toEqual([reader.userId]);
    const starredBy = async (token: string) =>
      (await ok(t, 'GET', `/api/drive/nodes?spaceId=${s.id}`, token)).list.find((n: { id: number }) => n.id === f.id)
        .starred;
    expect(await starredBy(reader.token)).toBe(true);
    expect(await starredBy(owner.token)).toBe(false);
    expect((await ok(t, 'GET', `/api/drive/nodes/${f.id}`, reader.token)).starred).toBe(true);
    expect(await ok(t, 'DELETE', `/api/drive/nodes/${f.id}/star`, reader.token)).toEqual({ ok: true });
    expect(await ok(t, 'DELETE', `/api/drive/nodes/${f.id}/star`, reader.token)).toEqual({ ok: true });
    expect(await starsOf()).toEqual([]);
  });

  it('needs drive:node:view (403) and browse on the node (404); another tenant’s node is not found; bad ids are 400', async () => {
    const f = await file(t, tenantId, s.id, null, 'guarded-star.txt');
    const before = await rowCount(t, driveNodeStars);
    expectError(
      await call(t.app, 'PUT', `/api/drive/nodes/${f.id}/star`, { token: noView.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/drive/nodes/${f.id}/star`, { token: noView.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'PUT', `/api/drive/nodes/${f.id}/star`, { token: outsider.token }),
      404,
      'drive.node_not_found',
    );
    expectError(
      await call(t.app, 'PUT', `/api/drive/nodes/${f.id}/star`, { token: other.adminToken }),
      404,
      'drive.node_not_found',
    );
    expectError(
      await call(t.app, 'DELETE', `/api/drive/nodes/${f.id}/star`, { token: other.adminToken }),
      404,
      'drive.node_not_found',
    );
    expectError(
      await call(t.app, 'PUT', '/api/drive/nodes/abc/star', { token: reader.token }),
      400,
      'request.validation_failed',
      'id',
    );
    expect(await rowCount(t, driveNodeStars)).toBe(before);
  });

  it('GET /api/drive/nodes/starred: newest star first, paged, only live nodes I may still browse', async () => {
    const user = await driveUser(t);
    const sp = await space(t, tenantId, { ownerUserId: owner.userId });
    await member(t, tenantId, sp.id, { type: 'user', id: user.userId }, 'viewer');
    await member(t, tenantId, s.id, { type: 'user', id: user.userId }, 'viewer');
    const a = await file(t, tenantId, s.id, null, 'first-star.txt');
    const b = await folder(t, tenantId, sp.id, null, 'second-star');
    const c = await file(t, tenantId, s.id, null, 'third-star.txt');
    const gone = await file(t, tenantId, s.id, null, 'deleted-star.txt');
    for (const n of [a, b, c, gone]) await ok(t, 'PUT', `/api/drive/nodes/${n.id}/star`, user.token);
    await deleteNode(gone.id);

    const all = await ok(t, 'GET', '/api/drive/nodes/starred', user.token);
    expect(all).toMatchObject({ total: 3, page: 1, pageSize: 20 });
    expect(names(all.list)).toEqual(['third-star.txt', 'second-star', 'first-star.txt']);
    expect(all.list[0]).toMatchObject({ starred: true, myRole: 'viewer', starredAt: expect.any(String) });
    const page2 = await ok(t, 'GET', '/api/drive/nodes/starred?pageSize=2&page=2', user.token);
    expect(names(page2.list)).toEqual(['first-star.txt']);

    // no longer a member of sp: its node drops out
    await t.database.db
      .delete(driveSpaceMembers)
      .where(and(eq(driveSpaceMembers.spaceId, sp.id), eq(driveSpaceMembers.subjectId, user.userId)));
    expect(names((await ok(t, 'GET', '/api/drive/nodes/starred', user.token)).list)).toEqual([
      'third-star.txt',
      'first-star.txt',
    ]);
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/starred', { token: noView.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/starred?pageSize=500', { token: user.token }),
      400,
      'request.validation_failed',
      'pageSize',
    );
    expect((await ok(t, 'GET', '/api/drive/nodes/starred', other.adminToken)).total).toBe(0);
  });
});

describe('GET /api/drive/nodes/recent', () => {
  it('lists the files I opened, latest first, paged, only live ones I may still browse', async () => {
    const user = await driveUser(t);
    const sp = await space(t, tenantId, { ownerUserId: owner.userId });
    await member(t, tenantId, sp.id, { type: 'user', id: user.userId }, 'viewer');
    const x = await file(t, tenantId, sp.id, null, 'x.txt');
    const y = await file(t, tenantId, sp.id, null, 'y.txt');
    const z = await file(t, tenantId, sp.id, null, 'z.txt');
    for (const n of [x, y, z, x]) {
      await ok(t, 'GET', `/api/drive/nodes/${n.id}`, user.token);
      await new Promise((r) => setTimeout(r, 5));
    }
    const recent = await ok(t, 'GET', '/api/drive/nodes/recent', user.token);
    expect(names(recent.list)).toEqual(['x.txt', 'z.txt', 'y.txt']);
    expect(recent.list[0]).toMatchObject({ myRole: 'viewer', accessedAt: expect.any(String) });
    expect(names((await ok(t, 'GET', '/api/drive/nodes/recent?pageSize=1&page=3', user.token)).list)).toEqual([
      'y.txt',
    ]);

    await deleteNode(z.id);
    expect(names((await ok(t, 'GET', '/api/drive/nodes/recent', user.token)).list)).toEqual(['x.txt', 'y.txt']);
    await t.database.db.delete(driveSpaceMembers).where(eq(driveSpaceMembers.spaceId, sp.id));
    expect((await ok(t, 'GET', '/api/drive/nodes/recent', user.token)).total).toBe(0);
    expect(await rowCount(t, driveRecentAccess)).toBeGreaterThanOrEqual(3);
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/recent', { token: noView.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/recent?page=0', { token: user.token }),
      400,
      'request.validation_failed',
      'page',
    );
    expect((await ok(t, 'GET', '/api/drive/nodes/recent', other.adminToken)).total).toBe(0);
  });
});

describe('GET /api/drive/nodes/shared-with-me', () => {
  it('lists live nodes others granted to me or my department, each once with the best grant, newest first', async () => {
    const dept = await department(t, tenantId, { name: 'Sales' });
    const user = await driveUser(t, { departmentId: dept.id });
    const teamA = await space(t, tenantId, { ownerUserId: owner.userId });
    const teamB = await space(t, tenantId, { ownerUserId: owner.userId });
    const personal = await space(t, tenantId, { type: 'personal', ownerUserId: user.userId });
    const f1 = await folder(t, tenantId, teamA.id, null, 'to-user');
    const f2 = await file(t, tenantId, teamB.id, null, 'to-dept.txt');
    const both = await file(t, tenantId, teamA.id, f1, 'both.txt');
    const expired = await file(t, tenantId, teamA.id, null, 'expired.txt');
    const gone = await file(t, tenantId, teamA.id, null, 'gone.txt');
    const mine = await file(t, tenantId, personal.id, null, 'in-my-space.txt');
    const self = await file(t, tenantId, teamA.id, null, 'self-granted.txt');

    await grant(t, tenantId, f1, { type: 'user', id: user.userId }, 'editor', { createdBy: owner.userId });
    await grant(t, tenantId, f2, { type: 'department', id: dept.id }, 'viewer', { createdBy: owner.userId });
    await grant(t, tenantId, both, { type: 'department', id: dept.id }, 'viewer', { createdBy: owner.userId });
    await grant(t, tenantId, both, { type: 'user', id: user.userId }, 'downloader', { createdBy: owner.userId });
    await grant(t, tenantId, expired, { type: 'user', id: user.userId }, 'editor', {
      createdBy: owner.userId,
      expiresAt: new Date(Date.now() - 60_000),
    });
    await grant(t, tenantId, gone, { type: 'user', id: user.userId }, 'viewer', { createdBy: owner.userId });
    await deleteNode(gone.id);
    await grant(t, tenantId, mine, { type: 'user', id: user.userId }, 'viewer', { createdBy: owner.userId });
    await grant(t, tenantId, self, { type: 'user', id: user.userId }, 'viewer', { createdBy: user.userId });

    const shared = await ok(t, 'GET', '/api/drive/nodes/shared-with-me', user.token);
    expect(shared.total).toBe(3);
    expect(
      shared.list.map((n: { name: string; grantedRole: string; myRole: string }) => [n.name, n.grantedRole, n.myRole]),
    ).toEqual([
      // both.txt: its newer grant (downloader) is the best; myRole also counts the editor grant on its folder
      ['both.txt', 'downloader', 'editor'],
      ['to-dept.txt', 'viewer', 'viewer'],
      ['to-user', 'editor', 'editor'],
    ]);
    expect(shared.list[2]).toMatchObject({
      id: f1.id,
      spaceId: teamA.id,
      grantedBy: owner.userId,
      grantedByName: owner.username,
      grantedAt: expect.any(String),
    });
    const page = await ok(t, 'GET', '/api/drive/nodes/shared-with-me?pageSize=2&page=2', user.token);
    expect(page).toMatchObject({ total: 3, page: 2, pageSize: 2 });
    expect(names(page.list)).toEqual(['to-user']);

    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/shared-with-me', { token: noView.token }),
      403,
      'auth.permission_denied',
    );
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/shared-with-me?pageSize=0', { token: user.token }),
      400,
      'request.validation_failed',
      'pageSize',
    );
    expect((await ok(t, 'GET', '/api/drive/nodes/shared-with-me', other.adminToken)).total).toBe(0);
    expect((await ok(t, 'GET', '/api/drive/nodes/shared-with-me', outsider.token)).total).toBe(0);
  });
});
