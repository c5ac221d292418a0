import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveAccessRequests, driveNodePermissions } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant, grantsOfNode } from './permissions-helpers.ts';
import { notificationsOf } from './requests-helpers.ts';

/**
 * Answering access requests (issue 15): approve (granting the role in the same transaction),
 * reject, withdraw — who may, what is written, who is told.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'viewer' | 'stranger' | 'viewOnly', DriveUser> = {} as never;
let sp: SpaceRow;
let top: NodeRow;

const user = (x: TenantFixture, permissions?: string[]) =>
  driveUser(t, { tenantId: x.tenantId, tenantCode: x.code, ...(permissions ? { permissions } : {}) });
const url = (id: number, verb: string) => `/api/drive/access-requests/${id}/${verb}`;
const post = (token: string, u: string, body?: object) => call(t.app, 'POST', u, { token, ...(body ? { body } : {}) });
const future = (days = 1) => new Date(Date.now() + days * 86_400_000).toISOString();
let n = 0;

/** A fresh file and a pending request of `asker` (a new user by default) for `role` on it. */
async function pending(role = 'editor', asker?: DriveUser) {
  const who = asker ?? (await user(a));
  const node = await file(t, a.tenantId, sp.id, top, `doc-${++n}.txt`);
  const res = await post(who.token, '/api/drive/access-requests', { nodeId: node.id, role });
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().data.id as number, node, asker: who };
}
const requestRow = (id: number) => rowById(t, driveAccessRequests, id);

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.viewer = await user(a);
  u.stranger = await user(a);
  u.viewOnly = await user(a, ['drive:node:view', 'drive:space:view']);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Projects space' });
  top = await folder(t, a.tenantId, sp.id, null, 'Projects');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewOnly.userId }, 'manager');
});
afterAll(async () => t?.close());

describe('POST /api/drive/access-requests/{id}/approve', () => {
  it('grants the requested role in the same step, records it and tells the requester', async () => {
    const r = await pending('downloader');
    const before = (await notificationsOf(t, a.tenantId, 'drive.access.resolved')).length;
    const res = await post(u.owner.token, url(r.id, 'approve'), { note: 'go ahead' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'approved',
      grantedRole: 'downloader',
      grantExpiresAt: null,
      decisionNote: 'go ahead',
      decidedBy: { id: u.owner.userId, name: u.owner.username },
    });
    const grants = await grantsOfNode(t, r.node.id);
    expect(grants.map((g) => [g.subjectType, g.subjectId, g.role, g.expiresAt])).toEqual([
      ['user', r.asker.userId, 'downloader', null],
    ]);
    const node = await call(t.app, 'GET', `/api/drive/nodes/${r.node.id}`, { token: r.asker.token });
    expect(node.statusCode, node.body).toBe(200);
    const acts = (await activitiesOfNode(t, r.node.id)).map((x) => x.action);
    expect(acts).toEqual(expect.arrayContaining(['access.request', 'grant.add', 'access.approve']));
    const sent = (await notificationsOf(t, a.tenantId, 'drive.access.resolved')).slice(before);
    expect(sent).toEqual([
      {
        userIds: [r.asker.userId],
        variables: {
          nodeName: r.node.name,
          spaceName: 'Projects space',
          actorName: u.owner.username,
          result: 'approved',
        },
      },
    ]);
  });

  it('with an expiry: the grant expires and the node is not found again', async () => {
    const r = await pending('viewer');
    const expiresAt = future(2);
    const res = await post(u.owner.token, url(r.id, 'approve'), { role: 'editor', expiresAt });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ grantedRole: 'editor', grantExpiresAt: expiresAt });
    const [g] = await grantsOfNode(t, r.node.id);
    expect(g).toMatchObject({ role: 'editor', expiresAt: new Date(expiresAt) });
    const see = () => call(t.app, 'GET', `/api/drive/nodes/${r.node.id}`, { token: r.asker.token });
    expect((await see()).statusCode).toBe(200);
    await t.database.db
      .update(driveNodePermissions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(driveNodePermissions.id, g?.id as number));
    expectError(await see(), 404, 'drive.node_not_found');
  });

  it('raises an existing lower direct grant and never lowers a higher one', async () => {
    const asker = await user(a);
    const r = await pending('editor', asker);
    const old = await grant(t, a.tenantId, r.node, { type: 'user', id: asker.userId }, 'viewer');
    const expiresAt = future(3);
    expect((await post(u.owner.token, url(r.id, 'approve'), { expiresAt })).statusCode).toBe(200);
    expect((await grantsOfNode(t, r.node.id)).map((g) => [g.id, g.role, g.expiresAt?.toISOString()])).toEqual([
      [old.id, 'editor', expiresAt],
    ]);
    expect((await activitiesOfNode(t, r.node.id)).map((x) => x.action)).toContain('grant.update');

    const r2 = await pending('manager', asker);
    await grant(t, a.tenantId, r2.node, { type: 'user', id: asker.userId }, 'downloader');
    expect((await post(u.owner.token, url(r2.id, 'approve'), { role: 'viewer' })).statusCode).toBe(200);
    expect((await grantsOfNode(t, r2.node.id)).map((g) => g.role)).toEqual(['downloader']);
  });

  it('bad input is a 400 naming the field; the request stays pending, no grant', async () => {
    const r = await pending();
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const [body, field] of [
      [{ expiresAt: past }, 'expiresAt'],
      [{ expiresAt: 'soon' }, 'expiresAt'],
      [{ role: 'boss' }, 'role'],
      [{ note: 'x'.repeat(501) }, 'note'],
    ] as const)
      expectError(await post(u.owner.token, url(r.id, 'approve'), body), 400, 'request.validation_failed', field);
    expect((await requestRow(r.id))?.status).toBe('pending');
    expect(await grantsOfNode(t, r.node.id)).toEqual([]);
  });

  it('only a manager of the node: 404 when it cannot see the node, 403 below manager or without the permission', async () => {
    const r = await pending();
    const grants = await rowCount(t, driveNodePermissions);
    expectError(await post(u.stranger.token, url(r.id, 'approve'), {}), 404, 'drive.node_not_found');
    expectError(await post(u.viewer.token, url(r.id, 'approve'), {}), 403, 'drive.role_too_low');
    expectError(await post(u.viewOnly.token, url(r.id, 'approve'), {}), 403, 'auth.permission_denied');
    expectError(await post(r.asker.token, url(r.id, 'approve'), {}), 404, 'drive.node_not_found');
    expectError(await post(other.adminToken, url(r.id, 'approve'), {}), 404, 'drive.access_request_not_found');
    expectError(await post(other.adminToken, url(r.id, 'reject'), {}), 404, 'drive.access_request_not_found');
    expect((await requestRow(r.id))?.status).toBe('pending');
    expect(await rowCount(t, driveNodePermissions)).toBe(grants);
  });

  it('a decided request is 409; of two approvers at once, one wins', async () => {
    const r = await pending();
    const [x, y] = await Promise.all([
      post(u.owner.token, url(r.id, 'approve'), {}),
      post(u.owner.token, url(r.id, 'approve'), { role: 'viewer' }),
    ]);
    expect([x?.statusCode, y?.statusCode].sort()).toEqual([200, 409]);
    expectError([x, y].find((q) => q?.statusCode === 409) as never, 409, 'drive.access_request_decided');
    expect(await grantsOfNode(t, r.node.id)).toHaveLength(1);
    expectError(await post(u.owner.token, url(r.id, 'reject'), {}), 409, 'drive.access_request_decided');
    expectError(await post(r.asker.token, url(r.id, 'withdraw')), 409, 'drive.access_request_decided');
  });
});

describe('POST /api/drive/access-requests/{id}/reject', () => {
  it('rejects, grants nothing, and tells the requester', async () => {
    const r = await pending();
    const before = (await notificationsOf(t, a.tenantId, 'drive.access.resolved')).length;
    const res = await post(u.owner.token, url(r.id, 'reject'), { note: 'not this one' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'rejected', decisionNote: 'not this one', grantedRole: null });
    expect(await grantsOfNode(t, r.node.id)).toEqual([]);
    expect((await activitiesOfNode(t, r.node.id)).map((x) => x.action)).toContain('access.reject');
    const sent = (await notificationsOf(t, a.tenantId, 'drive.access.resolved')).slice(before);
    expect(sent).toMatchObject([{ userIds: [r.asker.userId], variables: { result: 'rejected' } }]);
  });

  it('refuses bad input, a viewer, no permission — the request stays pending', async () => {
    const r = await pending();
    expectError(
      await post(u.owner.token, url(r.id, 'reject'), { note: 'x'.repeat(501) }),
      400,
      'request.validation_failed',
      'note',
    );
    expectError(await post(u.viewer.token, url(r.id, 'reject'), {}), 403, 'drive.role_too_low');
    expectError(await post(u.viewOnly.token, url(r.id, 'reject'), {}), 403, 'auth.permission_denied');
    expectError(await post(u.stranger.token, url(r.id, 'reject'), {}), 404, 'drive.node_not_found');
    expect((await requestRow(r.id))?.status).toBe('pending');
  });
});

describe('POST /api/drive/access-requests/{id}/withdraw', () => {
  it('the requester withdraws a pending request, and may then ask again', async () => {
    const r = await pending();
    const res = await post(r.asker.token, url(r.id, 'withdraw'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'withdrawn' });
    expect((await activitiesOfNode(t, r.node.id)).map((x) => x.action)).toContain('access.withdraw');
    expectError(await post(r.asker.token, url(r.id, 'withdraw')), 409, 'drive.access_request_decided');
    const again = await post(r.asker.token, '/api/drive/access-requests', { nodeId: r.node.id, role: 'viewer' });
    expect(again.statusCode, again.body).toBe(201);
  });

  it('only the requester: a manager gets 403, anyone else (or another tenant) 404', async () => {
    const r = await pending();
    expectError(await post(u.owner.token, url(r.id, 'withdraw')), 403, 'drive.not_requester');
    expectError(await post(u.stranger.token, url(r.id, 'withdraw')), 404, 'drive.access_request_not_found');
    expectError(await post(other.adminToken, url(r.id, 'withdraw')), 404, 'drive.access_request_not_found');
    const noPerm = await user(a, []);
    expectError(await post(noPerm.token, url(r.id, 'withdraw')), 403, 'auth.permission_denied');
    expectError(await post(r.asker.token, url(0, 'withdraw')), 400, 'request.validation_failed', 'id');
    expect((await requestRow(r.id))?.status).toBe('pending');
  });
});
