import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveAccessRequests } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant } from './permissions-helpers.ts';
import { notificationsOf, requestsOfNode } from './requests-helpers.ts';

/**
 * Asking for access (issue 15): POST /api/drive/access-requests, and the listings
 * GET …/pending, …/mine and …/{id} that show requests to their managers and their requester.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
const u: Record<'owner' | 'folderManager' | 'viewer' | 'stranger' | 'nobody', DriveUser> = {} as never;
let sp: SpaceRow;
let top: NodeRow;
let sub: NodeRow;
let doc: NodeRow;
let otherNode: NodeRow;

const user = (x: TenantFixture, permissions?: string[]) =>
  driveUser(t, { tenantId: x.tenantId, tenantCode: x.code, ...(permissions ? { permissions } : {}) });
const ask = (token: string, body: object) => call(t.app, 'POST', '/api/drive/access-requests', { token, body });
const get = (token: string, url: string) => call(t.app, 'GET', url, { token });

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  u.owner = await user(a);
  u.folderManager = await user(a);
  u.viewer = await user(a);
  u.stranger = await user(a);
  u.nobody = await user(a, []);
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: u.owner.userId, name: 'Projects space' });
  top = await folder(t, a.tenantId, sp.id, null, 'Projects');
  sub = await folder(t, a.tenantId, sp.id, top, 'Q3');
  doc = await file(t, a.tenantId, sp.id, sub, 'plan.txt');
  await grant(t, a.tenantId, top, { type: 'user', id: u.folderManager.userId }, 'manager');
  await grant(t, a.tenantId, top, { type: 'user', id: u.viewer.userId }, 'viewer');
  const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
  otherNode = await folder(t, other.tenantId, osp.id, null, 'Theirs');
});
afterAll(async () => t?.close());

describe('POST /api/drive/access-requests', () => {
  it('lets someone who cannot see a node ask for a role; the managers are told, the request recorded', async () => {
    expectError(await get(u.stranger.token, `/api/drive/nodes/${doc.id}`), 404, 'drive.node_not_found');
    const before = (await notificationsOf(t, a.tenantId, 'drive.access.requested')).length;
    const res = await ask(u.stranger.token, { nodeId: doc.id, role: 'downloader', message: 'for the review' });
    expect(res.statusCode, res.body).toBe(201);
    const r = res.json().data;
    expect(r).toMatchObject({
      status: 'pending',
      node: { id: doc.id, name: 'plan.txt', type: 'file', path: '/Projects/Q3/plan.txt' },
      space: { id: sp.id, name: 'Projects space' },
      requester: { id: u.stranger.userId, name: u.stranger.username },
      requestedRole: 'downloader',
      message: 'for the review',
      decidedBy: null,
      grantedRole: null,
    });
    const rows = await requestsOfNode(t, doc.id);
    expect(rows.map((x) => [x.id, x.status, x.requesterUserId])).toEqual([[r.id, 'pending', u.stranger.userId]]);
    const acts = (await activitiesOfNode(t, doc.id)).filter((x) => x.action === 'access.request');
    expect(acts.map((x) => [x.actorUserId, x.detail])).toEqual([
      [u.stranger.userId, { requestId: r.id, role: 'downloader' }],
    ]);
    const sent = (await notificationsOf(t, a.tenantId, 'drive.access.requested')).slice(before);
    expect(sent).toEqual([
      {
        userIds: [u.owner.userId, u.folderManager.userId].sort((x, y) => x - y),
        variables: {
          nodeName: 'plan.txt',
          spaceName: 'Projects space',
          actorName: u.stranger.username,
          role: 'downloader',
        },
      },
    ]);
  });

  it('refuses bad input with a 400 naming the field, writing nothing', async () => {
    const n = await rowCount(t, driveAccessRequests);
    expectError(await ask(u.viewer.token, { nodeId: sub.id, role: 'boss' }), 400, 'request.validation_failed', 'role');
    expectError(await ask(u.viewer.token, { nodeId: 0, role: 'editor' }), 400, 'request.validation_failed', 'nodeId');
    expectError(
      await ask(u.viewer.token, { nodeId: sub.id, role: 'editor', message: 'x'.repeat(501) }),
      400,
      'request.validation_failed',
      'message',
    );
    expectError(await ask(u.viewer.token, { role: 'editor' }), 400, 'request.validation_failed', 'nodeId');
    expect(await rowCount(t, driveAccessRequests)).toBe(n);
  });

  it('needs drive:node:view', async () => {
    const n = await rowCount(t, driveAccessRequests);
    expectError(await ask(u.nobody.token, { nodeId: sub.id, role: 'viewer' }), 403, 'auth.permission_denied');
    expect(await rowCount(t, driveAccessRequests)).toBe(n);
  });

  it('a node of another tenant (or none) is not found, nothing written', async () => {
    const n = await rowCount(t, driveAccessRequests);
    expectError(await ask(u.stranger.token, { nodeId: otherNode.id, role: 'viewer' }), 404, 'drive.node_not_found');
    expectError(await ask(u.stranger.token, { nodeId: 2_000_000_000, role: 'viewer' }), 404, 'drive.node_not_found');
    expect(await rowCount(t, driveAccessRequests)).toBe(n);
    expect(await requestsOfNode(t, otherNode.id)).toEqual([]);
  });

  it('refuses a role already held (409), allows asking for more', async () => {
    expectError(
      await ask(u.viewer.token, { nodeId: sub.id, role: 'viewer' }),
      409,
      'drive.access_already_granted',
      'role',
    );
    expectError(await ask(u.owner.token, { nodeId: sub.id, role: 'manager' }), 409, 'drive.access_already_granted');
    const res = await ask(u.viewer.token, { nodeId: sub.id, role: 'editor' });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('keeps one pending request per person and node, even under 10 concurrent asks', async () => {
    const f = await folder(t, a.tenantId, sp.id, top, 'Race');
    const asker = await user(a);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => ask(asker.token, { nodeId: f.id, role: 'editor' })),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 409, 'drive.access_request_pending');
    expect((await requestsOfNode(t, f.id)).filter((r) => r.status === 'pending')).toHaveLength(1);
  });
});

describe('GET /api/drive/access-requests/pending, /mine and /{id}', () => {
  let reqA: number;
  let reqB: number;
  let asker: DriveUser;

  beforeAll(async () => {
    asker = await user(a);
    const f1 = await folder(t, a.tenantId, sp.id, null, 'Outside');
    const f2 = await folder(t, a.tenantId, sp.id, top, 'Inside');
    reqA = (await ask(asker.token, { nodeId: f1.id, role: 'viewer' })).json().data.id;
    reqB = (await ask(asker.token, { nodeId: f2.id, role: 'editor' })).json().data.id;
  });

  it('pending: the space manager sees every request of the space, newest first, paged', async () => {
    const res = await get(u.owner.token, '/api/drive/access-requests/pending?pageSize=200');
    expect(res.statusCode, res.body).toBe(200);
    const ids = res.json().data.list.map((r: { id: number }) => r.id);
    expect(ids.indexOf(reqB)).toBeLessThan(ids.indexOf(reqA));
    expect(ids).toContain(reqA);
    const total = res.json().data.total;
    const page = await get(u.owner.token, '/api/drive/access-requests/pending?page=1&pageSize=1');
    expect(page.json().data).toMatchObject({ total, page: 1, pageSize: 1 });
    expect(page.json().data.list.map((r: { id: number }) => r.id)).toEqual([ids[0]]);
    const b = res.json().data.list.find((r: { id: number }) => r.id === reqB);
    expect(b).toMatchObject({
      requester: { id: asker.userId, name: asker.username },
      node: { name: 'Inside', path: '/Projects/Inside' },
      space: { name: 'Projects space' },
      status: 'pending',
    });
  });

  it('pending: a manager by grant sees only the requests below the granted folder; others see none', async () => {
    const res = await get(u.folderManager.token, '/api/drive/access-requests/pending?pageSize=200');
    const ids = res.json().data.list.map((r: { id: number }) => r.id);
    expect(ids).toContain(reqB);
    expect(ids).not.toContain(reqA);
    const none = await get(u.viewer.token, '/api/drive/access-requests/pending');
    expect(none.json().data).toMatchObject({ list: [], total: 0 });
    const otherAdmin = await get(other.adminToken, '/api/drive/access-requests/pending');
    expect(otherAdmin.json().data.list).toEqual([]);
  });

  it("mine: the caller's own requests only, newest first", async () => {
    const res = await get(asker.token, '/api/drive/access-requests/mine');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ total: 2 });
    expect(res.json().data.list.map((r: { id: number }) => r.id)).toEqual([reqB, reqA]);
    const theirs = await get(u.owner.token, '/api/drive/access-requests/mine');
    expect(theirs.json().data.list.map((r: { id: number }) => r.id)).not.toContain(reqA);
  });

  it('{id}: the requester and the managers see it with their own role; anyone else gets 404', async () => {
    const mine = await get(asker.token, `/api/drive/access-requests/${reqB}`);
    expect(mine.statusCode, mine.body).toBe(200);
    expect(mine.json().data).toMatchObject({ id: reqB, yourRole: null, node: { name: 'Inside' } });
    const mgr = await get(u.folderManager.token, `/api/drive/access-requests/${reqB}`);
    expect(mgr.json().data).toMatchObject({ id: reqB, yourRole: 'manager' });
    expectError(await get(u.viewer.token, `/api/drive/access-requests/${reqB}`), 404, 'drive.access_request_not_found');
    expectError(
      await get(u.folderManager.token, `/api/drive/access-requests/${reqA}`),
      404,
      'drive.access_request_not_found',
    );
    expectError(
      await get(other.adminToken, `/api/drive/access-requests/${reqB}`),
      404,
      'drive.access_request_not_found',
    );
  });

  it('needs drive:node:view; bad ids and paging are 400', async () => {
    for (const url of ['pending', 'mine', String(reqA)])
      expectError(await get(u.nobody.token, `/api/drive/access-requests/${url}`), 403, 'auth.permission_denied');
    expectError(await get(asker.token, '/api/drive/access-requests/0'), 400, 'request.validation_failed', 'id');
    expectError(
      await get(asker.token, '/api/drive/access-requests/mine?pageSize=0'),
      400,
      'request.validation_failed',
      'pageSize',
    );
  });
});
