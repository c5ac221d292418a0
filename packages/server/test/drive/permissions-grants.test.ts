import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveActivities, driveNodePermissions } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { messagesOf } from '../messaging/inapp-helpers.ts';
import { waitFor } from '../open-platform/webhooks-helpers.ts';
import { type DriveUser, department, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant, grantsOfNode, plainRole, sharedNotifications } from './permissions-helpers.ts';

/**
 * Grants on nodes (spec §5.5): POST/PUT/DELETE /api/drive/nodes/{id}/permissions and the list
 * GET. A manager grants; the grant reaches the subtree; the subjects' users are told.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'editor' | 'viewer' | 'outsider' | 'viewOnly' | 'nobody' | 'bob', DriveUser> = {} as never;
let sp: SpaceRow;
let top: NodeRow;
let sub: NodeRow;
let doc: NodeRow;
let otherNode: NodeRow;

const user = (x: { tenantId: number; code: string }, permissions?: string[]) =>
  driveUser(t, { tenantId: x.tenantId, tenantCode: x.code, ...(permissions ? { permissions } : {}) });
const grantsUrl = (id: number) => `/api/drive/nodes/${id}/permissions`;
const post = (token: string, id: number, body: object) => call(t.app, 'POST', grantsUrl(id), { token, body });
const future = () => new Date(Date.now() + 86_400_000).toISOString();

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.editor = await user(a);
  u.viewer = await user(a);
  u.outsider = await user(a);
  u.bob = await user(a);
  u.viewOnly = await user(a, ['drive:node:view', 'drive:space:view']);
  u.nobody = await user(a, []);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Projects space' });
  top = await folder(t, a.tenantId, sp.id, null, 'Projects');
  sub = await folder(t, a.tenantId, sp.id, top, 'Q3');
  doc = await file(t, a.tenantId, sp.id, sub, 'plan.txt');
  await grant(t, a.tenantId, top, { type: 'user', id: u.editor.userId }, 'editor');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewOnly.userId }, 'manager');
  await grant(t, a.tenantId, top, { type: 'user', id: u.nobody.userId }, 'manager');
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
  otherNode = await folder(t, other.tenantId, osp.id, null, 'Theirs');
});
afterAll(async () => t?.close());

describe('POST /api/drive/nodes/{id}/permissions', () => {
  it('grants a user a role, records it, and the grant reaches the subtree', async () => {
    const before = await call(t.app, 'GET', grantsUrl(doc.id), { token: u.bob.token });
    expectError(before, 404, 'drive.node_not_found');

    const expiresAt = future();
    const res = await post(u.owner.token, top.id, {
      subjectType: 'user',
      subjectId: u.bob.userId,
      role: 'downloader',
      expiresAt,
    });
    expect(res.statusCode, res.body).toBe(201);
    const g = res.json().data;
    expect(g).toMatchObject({
      nodeId: top.id,
      nodeName: 'Projects',
      inherited: false,
      subject: { type: 'user', id: u.bob.userId, name: u.bob.username },
      role: 'downloader',
      expiresAt,
      expired: false,
      createdBy: { id: u.owner.userId, name: u.owner.username },
    });
    expect(await rowById(t, driveNodePermissions, g.id)).toMatchObject({
      tenantId: a.tenantId,
      spaceId: sp.id,
      nodeId: top.id,
      subjectType: 'user',
      subjectId: u.bob.userId,
      role: 'downloader',
      createdBy: u.owner.userId,
    });
    const acts = await activitiesOfNode(t, top.id);
    expect(acts.at(-1)).toMatchObject({
      action: 'grant.add',
      actorUserId: u.owner.userId,
      tenantId: a.tenantId,
      detail: { grantId: g.id, role: 'downloader', subject: { type: 'user', id: u.bob.userId } },
    });

    // two levels below, Bob now sees the file and where his role comes from
    const list = await call(t.app, 'GET', grantsUrl(doc.id), { token: u.bob.token });
    expect(list.statusCode, list.body).toBe(200);
    const mine = list.json().data.grants.find((x: { id: number }) => x.id === g.id);
    expect(mine).toMatchObject({ inherited: true, nodeId: top.id, nodeName: 'Projects', role: 'downloader' });
  });

  it('tells the granted user once (drive.node.shared, after commit), with a link to the node', async () => {
    const carol = await user(a);
    const before = (await sharedNotifications(t, a.tenantId)).length;
    const res = await post(u.owner.token, sub.id, { subjectType: 'user', subjectId: carol.userId, role: 'viewer' });
    expect(res.statusCode, res.body).toBe(201);
    const sent = (await sharedNotifications(t, a.tenantId)).slice(before);
    expect(sent).toEqual([
      {
        userIds: [carol.userId],
        variables: { nodeName: 'Q3', spaceName: 'Projects space', actorName: u.owner.username },
        link: `/drive?space=${sp.id}&node=${sub.id}`,
      },
    ]);
    const inbox = await waitFor(async () => {
      const m = await messagesOf(t, carol.userId);
      return m.length ? m : undefined;
    }, 'the in-app message');
    expect(inbox.map((m) => m.title)).toEqual([`${u.owner.username} shared Q3 with you`]);
  });

  it('tells every member of a granted department, sub-departments included, but not the granter', async () => {
    const sales = await department(t, a.tenantId, { name: 'Sales' });
    const east = await department(t, a.tenantId, { name: 'Sales East', parent: sales });
    const granter = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, departmentId: sales.id });
    const s1 = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, departmentId: sales.id });
    const e1 = await driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, departmentId: east.id });
    const f = await folder(t, a.tenantId, sp.id, null, 'Sales docs');
    await grant(t, a.tenantId, f, { type: 'user', id: granter.userId }, 'manager');
    const before = (await sharedNotifications(t, a.tenantId)).length;
    const res = await post(granter.token, f.id, { subjectType: 'department', subjectId: sales.id, role: 'editor' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.subject).toEqual({ type: 'department', id: sales.id, name: 'Sales' });
    const sent = (await sharedNotifications(t, a.tenantId)).slice(before);
    expect(sent.map((s) => s.userIds)).toEqual([[s1.userId, e1.userId].sort((x, y) => x - y)]);

    // a role grant reaches its holders; a grant whose only user is the granter tells nobody
    const r = await plainRole(t, a.tenantId, [s1.userId]);
    expect((await post(granter.token, f.id, { subjectType: 'role', subjectId: r.id, role: 'viewer' })).statusCode).toBe(
      201,
    );
    const alone = await plainRole(t, a.tenantId, [granter.userId]);
    expect(
      (await post(granter.token, f.id, { subjectType: 'role', subjectId: alone.id, role: 'viewer' })).statusCode,
    ).toBe(201);
    const after = (await sharedNotifications(t, a.tenantId)).slice(before);
    expect(after.map((s) => s.userIds)).toEqual([[s1.userId, e1.userId].sort((x, y) => x - y), [s1.userId]]);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const grants = await rowCount(t, driveNodePermissions);
    const acts = await rowCount(t, driveActivities);
    const notes = (await sharedNotifications(t, a.tenantId)).length;
    const ok = { subjectType: 'user', subjectId: u.outsider.userId, role: 'viewer' };
    const cases: [object, string, string][] = [
      [{}, 'subjectType', 'request.validation_failed'],
      [{ ...ok, subjectType: 'robot' }, 'subjectType', 'request.validation_failed'],
      [{ ...ok, subjectId: 0 }, 'subjectId', 'request.validation_failed'],
      [{ ...ok, subjectId: '7' }, 'subjectId', 'request.validation_failed'],
      [{ ...ok, subjectId: 2 ** 31 }, 'subjectId', 'request.validation_failed'],
      [{ ...ok, role: 'owner' }, 'role', 'request.validation_failed'],
      [{ ...ok, expiresAt: 'tomorrow' }, 'expiresAt', 'request.validation_failed'],
      [{ ...ok, expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt', 'request.validation_failed'],
      [{ ...ok, subjectId: 2_000_000_000 }, 'subjectId', 'drive.subject_not_found'],
      // a subject of another tenant does not exist here
      [{ ...ok, subjectId: other.adminUserId }, 'subjectId', 'drive.subject_not_found'],
      [{ ...ok, subjectType: 'department', subjectId: 2_000_000_000 }, 'subjectId', 'drive.subject_not_found'],
      [{ ...ok, subjectType: 'group', subjectId: 2_000_000_000 }, 'subjectId', 'drive.subject_not_found'],
    ];
    for (const [body, field, key] of cases) {
      expectError(await post(u.owner.token, top.id, body), 400, key, field);
    }
    expectError(
      await call(t.app, 'POST', '/api/drive/nodes/abc/permissions', { token: u.owner.token, body: ok }),
      400,
      'request.validation_failed',
      'id',
    );
    expect(await rowCount(t, driveNodePermissions)).toBe(grants);
    expect(await rowCount(t, driveActivities)).toBe(acts);
    expect((await sharedNotifications(t, a.tenantId)).length).toBe(notes);
  });

  it('allows one grant per subject and node: a second is 409 and changes nothing', async () => {
    const before = await grantsOfNode(t, top.id);
    const res = await post(u.owner.token, top.id, { subjectType: 'user', subjectId: u.editor.userId, role: 'manager' });
    expectError(res, 409, 'drive.grant_exists', 'subjectId');
    expect(await grantsOfNode(t, top.id)).toEqual(before);
  });

  it('needs drive:node:edit (403), and the manager role on the node (editor: 403, no role: 404)', async () => {
    const before = await rowCount(t, driveNodePermissions);
    const body = { subjectType: 'user', subjectId: u.outsider.userId, role: 'viewer' };
    expectError(await post(u.viewOnly.token, top.id, body), 403, 'auth.permission_denied');
    expectError(await post(u.nobody.token, top.id, body), 403, 'auth.permission_denied');
    const low = await post(u.editor.token, top.id, body);
    expectError(low, 403, 'drive.role_too_low');
    expect(low.json().message).toContain('manager');
    expectError(await post(u.viewer.token, sub.id, body), 403, 'drive.role_too_low');
    expectError(await post(u.outsider.token, top.id, body), 404, 'drive.node_not_found');
    expect(await rowCount(t, driveNodePermissions)).toBe(before);
  });

  it("does not reach another tenant's node, either way", async () => {
    const before = await rowCount(t, driveNodePermissions);
    const body = { subjectType: 'user', subjectId: other.adminUserId, role: 'viewer' };
    expectError(await post(u.owner.token, otherNode.id, body), 404, 'drive.node_not_found');
    // the other tenant's administrator holds every permission, but not our node
    expectError(await post(other.adminToken, top.id, body), 404, 'drive.node_not_found');
    expect(await rowCount(t, driveNodePermissions)).toBe(before);
  });
});

describe('GET /api/drive/nodes/{id}/permissions', () => {
  it('lists the direct grants then the inherited ones, with names, expiry and the break', async () => {
    const f = await folder(t, a.tenantId, sp.id, null, 'Listing');
    const inner = await folder(t, a.tenantId, sp.id, f, 'Inner');
    const old = await grant(
      t,
      a.tenantId,
      f,
      { type: 'user', id: u.bob.userId },
      'editor',
      new Date(Date.now() - 1000),
    );
    const up = await grant(t, a.tenantId, f, { type: 'user', id: u.viewer.userId }, 'viewer');
    const own = await grant(t, a.tenantId, inner, { type: 'user', id: u.editor.userId }, 'editor');
    const res = await call(t.app, 'GET', grantsUrl(inner.id), { token: u.viewer.token });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ nodeId: inner.id, inheritPermissions: true, aclOpen: true, breakAt: null });
    expect(
      data.grants.map((g: { id: number; inherited: boolean; expired: boolean; nodeName: string }) => [
        g.id,
        g.inherited,
        g.expired,
        g.nodeName,
      ]),
    ).toEqual([
      [own.id, false, false, 'Inner'],
      [old.id, true, true, 'Listing'],
      [up.id, true, false, 'Listing'],
    ]);
    expect(data.grants[1]).toMatchObject({ subject: { type: 'user', id: u.bob.userId, name: u.bob.username } });
  });

  it('needs drive:node:view and a role on the node; another tenant sees nothing', async () => {
    expectError(await call(t.app, 'GET', grantsUrl(top.id), { token: u.nobody.token }), 403, 'auth.permission_denied');
    expectError(await call(t.app, 'GET', grantsUrl(top.id), { token: u.outsider.token }), 404, 'drive.node_not_found');
    expectError(await call(t.app, 'GET', grantsUrl(top.id), { token: other.adminToken }), 404, 'drive.node_not_found');
    expectError(
      await call(t.app, 'GET', grantsUrl(otherNode.id), { token: u.owner.token }),
      404,
      'drive.node_not_found',
    );
    expectError(
      await call(t.app, 'GET', '/api/drive/nodes/0/permissions', { token: u.owner.token }),
      400,
      'request.validation_failed',
      'id',
    );
    expect((await call(t.app, 'GET', grantsUrl(doc.id), { token: u.viewOnly.token })).statusCode).toBe(200);
  });
});

describe('PUT and DELETE /api/drive/nodes/{id}/permissions/{grantId}', () => {
  const put = (token: string, node: number, id: number, body: object) =>
    call(t.app, 'PUT', `${grantsUrl(node)}/${id}`, { token, body });
  const del = (token: string, node: number, id: number) => call(t.app, 'DELETE', `${grantsUrl(node)}/${id}`, { token });

  it('changes the role and the expiry (null: never), recording each change; an unchanged request writes nothing', async () => {
    const g = await grant(t, a.tenantId, sub, { type: 'user', id: u.outsider.userId }, 'viewer');
    const until = future();
    const res = await put(u.owner.token, sub.id, g.id, { role: 'editor', expiresAt: until });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: g.id, role: 'editor', expiresAt: until, expired: false });
    expect(await rowById(t, driveNodePermissions, g.id)).toMatchObject({ role: 'editor', expiresAt: new Date(until) });
    const role = await put(u.owner.token, sub.id, g.id, { role: 'downloader' });
    expect(role.json().data).toMatchObject({ role: 'downloader', expiresAt: until });
    const never = await put(u.owner.token, sub.id, g.id, { expiresAt: null });
    expect(never.json().data).toMatchObject({ role: 'downloader', expiresAt: null });
    const updates = (await activitiesOfNode(t, sub.id)).filter((x) => x.action === 'grant.update');
    expect(updates.map((x) => x.detail.to)).toEqual([
      { role: 'editor', expiresAt: until },
      { role: 'downloader', expiresAt: until },
      { role: 'downloader', expiresAt: null },
    ]);
    const acts = await rowCount(t, driveActivities);
    expect((await put(u.owner.token, sub.id, g.id, { role: 'downloader' })).statusCode).toBe(200);
    expect((await put(u.owner.token, sub.id, g.id, {})).statusCode).toBe(200);
    expect(await rowCount(t, driveActivities)).toBe(acts);
    // the outsider reaches the file below as downloader now
    expect((await call(t.app, 'GET', grantsUrl(doc.id), { token: u.outsider.token })).statusCode).toBe(200);
  });

  it('removes a grant: the subject loses what it gave', async () => {
    const dave = await user(a);
    const g = await grant(t, a.tenantId, sub, { type: 'user', id: dave.userId }, 'viewer');
    expect((await call(t.app, 'GET', grantsUrl(doc.id), { token: dave.token })).statusCode).toBe(200);
    const res = await del(u.owner.token, sub.id, g.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ ok: true });
    expect(await rowById(t, driveNodePermissions, g.id)).toBeUndefined();
    expect((await activitiesOfNode(t, sub.id)).at(-1)).toMatchObject({
      action: 'grant.remove',
      detail: { grantId: g.id, role: 'viewer', subject: { type: 'user', id: dave.userId } },
    });
    expectError(await call(t.app, 'GET', grantsUrl(doc.id), { token: dave.token }), 404, 'drive.node_not_found');
    expectError(await del(u.owner.token, sub.id, g.id), 404, 'drive.grant_not_found');
  });

  it('refuses bad input naming the field, and a grant of another node (404), changing nothing', async () => {
    const g = await grant(t, a.tenantId, sub, { type: 'user', id: u.bob.userId }, 'viewer');
    const before = await rowById(t, driveNodePermissions, g.id);
    const acts = await rowCount(t, driveActivities);
    for (const [body, field] of [
      [{ role: 'owner' }, 'role'],
      [{ role: null }, 'role'],
      [{ expiresAt: 'soon' }, 'expiresAt'],
      [{ expiresAt: new Date(Date.now() - 1000).toISOString() }, 'expiresAt'],
    ] as [object, string][]) {
      expectError(await put(u.owner.token, sub.id, g.id, body), 400, 'request.validation_failed', field);
    }
    expectError(
      await call(t.app, 'PUT', `${grantsUrl(sub.id)}/x`, { token: u.owner.token, body: {} }),
      400,
      'request.validation_failed',
      'grantId',
    );
    // the grant is on Q3: through Projects (where the owner is manager too) it is not found
    expectError(await put(u.owner.token, top.id, g.id, { role: 'editor' }), 404, 'drive.grant_not_found');
    expectError(await del(u.owner.token, top.id, g.id), 404, 'drive.grant_not_found');
    expectError(await put(u.owner.token, sub.id, 2_000_000_000, { role: 'editor' }), 404, 'drive.grant_not_found');
    expect(await rowById(t, driveNodePermissions, g.id)).toEqual(before);
    expect(await rowCount(t, driveActivities)).toBe(acts);
  });

  it('needs drive:node:edit and the manager role; another tenant gets 404; nothing changes', async () => {
    const g = await grant(t, a.tenantId, sub, { type: 'user', id: u.viewer.userId }, 'downloader');
    const before = await rowById(t, driveNodePermissions, g.id);
    expectError(await put(u.viewOnly.token, sub.id, g.id, { role: 'manager' }), 403, 'auth.permission_denied');
    expectError(await del(u.viewOnly.token, sub.id, g.id), 403, 'auth.permission_denied');
    expectError(await put(u.editor.token, sub.id, g.id, { role: 'manager' }), 403, 'drive.role_too_low');
    expectError(await del(u.editor.token, sub.id, g.id), 403, 'drive.role_too_low');
    expectError(await put(u.outsider.token, top.id, g.id, { role: 'manager' }), 404, 'drive.node_not_found');
    expectError(await put(other.adminToken, sub.id, g.id, { role: 'manager' }), 404, 'drive.node_not_found');
    expectError(await del(other.adminToken, sub.id, g.id), 404, 'drive.node_not_found');
    expect(await rowById(t, driveNodePermissions, g.id)).toEqual(before);
    const [theirs] = await t.database.db
      .insert(driveNodePermissions)
      .values({
        tenantId: other.tenantId,
        spaceId: otherNode.spaceId,
        nodeId: otherNode.id,
        subjectType: 'user',
        subjectId: other.adminUserId,
        role: 'viewer',
      })
      .returning();
    expectError(await del(u.owner.token, otherNode.id, theirs?.id as number), 404, 'drive.node_not_found');
    const [still] = await t.database.db
      .select()
      .from(driveNodePermissions)
      .where(eq(driveNodePermissions.id, theirs?.id as number));
    expect(still).toMatchObject({ role: 'viewer' });
  });
});
