import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import type { SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import { driveActivities, driveNodePermissions, driveNodes, driveSpaces } from '../../src/modules/drive/tables.ts';
import { call, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectError, rowById, rowCount } from '../helpers/assert.ts';
import { createTenant, type TenantFixture } from '../helpers/fixtures.ts';
import { type DriveUser, driveUser, file, folder, space } from './drive-fixtures.ts';
import { activitiesOfNode, grant, grantsOfNode } from './permissions-helpers.ts';

/**
 * PUT /api/drive/nodes/{id}/inherit: breaking inheritance at a node cuts the grants above and
 * the space roles from its subtree (copying the live grants onto it by default); restoring
 * takes the parent's again. The tree columns of the whole subtree follow.
 */
let t: TestApp;
let a: TenantFixture;
let other: TenantFixture;
let owner: DriveUser;
let granted: DriveUser;
let direct: DriveUser;
let expired: DriveUser;
let member: DriveUser;
let editor: DriveUser;
let viewOnly: DriveUser;
let sp: SpaceRow;

const user = (permissions?: string[]) =>
  driveUser(t, { tenantId: a.tenantId, tenantCode: a.code, ...(permissions ? { permissions } : {}) });
const inherit = (token: string, id: number, body: object) =>
  call(t.app, 'PUT', `/api/drive/nodes/${id}/inherit`, { token, body });
const canBrowse = async (token: string, id: number) => {
  const res = await call(t.app, 'GET', `/api/drive/nodes/${id}/permissions`, { token });
  if (res.statusCode !== 200 && res.statusCode !== 404) throw new Error(res.body);
  return res.statusCode === 200;
};
const node = async (id: number) => (await rowById(t, driveNodes, id)) as NodeRow;
const tree = async (id: number) => {
  const n = await node(id);
  return { chain: n.aclChainIds, open: n.aclOpen, inherit: n.inheritPermissions };
};

/** A / B / C / f.txt, with grants: `granted` editor on A, `expired` (expired) editor on A, `direct` viewer on B. */
async function shape(name: string) {
  const A = await folder(t, a.tenantId, sp.id, null, name);
  const B = await folder(t, a.tenantId, sp.id, A, 'B');
  const C = await folder(t, a.tenantId, sp.id, B, 'C');
  const f = await file(t, a.tenantId, sp.id, C, 'f.txt');
  await grant(t, a.tenantId, A, { type: 'user', id: granted.userId }, 'editor');
  await grant(t, a.tenantId, A, { type: 'user', id: expired.userId }, 'editor', new Date(Date.now() - 1000));
  await grant(t, a.tenantId, B, { type: 'user', id: direct.userId }, 'viewer');
  await grant(t, a.tenantId, A, { type: 'user', id: editor.userId }, 'editor');
  await grant(t, a.tenantId, A, { type: 'user', id: viewOnly.userId }, 'manager');
  return { A, B, C, f };
}

beforeAll(async () => {
  t = await createTestApp();
  a = await createTenant(t);
  other = await createTenant(t);
  [owner, granted, direct, expired, member, editor] = await Promise.all([
    user(),
    user(),
    user(),
    user(),
    user(),
    user(),
  ]);
  viewOnly = await user(['drive:node:view']);
  // every signed-in user of the tenant is a viewer of the space
  sp = await space(t, a.tenantId, { type: 'team', ownerUserId: owner.userId, defaultMemberRole: 'viewer' });
});
afterAll(async () => t?.close());

describe('PUT /api/drive/nodes/{id}/inherit', () => {
  it('breaks: copies the live grants from above, cuts the space role below, carries the chain down', async () => {
    const { A, B, C, f } = await shape('Break');
    expect(await canBrowse(member.token, f.id)).toBe(true);
    const res = await inherit(owner.token, B.id, { inherit: false });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      nodeId: B.id,
      inheritPermissions: false,
      aclOpen: false,
      breakAt: { id: B.id, name: 'B', type: 'folder' },
    });
    // B's own viewer grant, then the copies of A's live grants (the expired one is not copied)
    expect(
      data.grants.map((g: { subject: { id: number }; role: string; inherited: boolean }) => [
        g.subject.id,
        g.role,
        g.inherited,
      ]),
    ).toEqual([
      [direct.userId, 'viewer', false],
      [granted.userId, 'editor', false],
      [editor.userId, 'editor', false],
      [viewOnly.userId, 'manager', false],
    ]);
    expect(await tree(A.id)).toEqual({ chain: [A.id], open: true, inherit: true });
    expect(await tree(B.id)).toEqual({ chain: [B.id], open: false, inherit: false });
    expect(await tree(C.id)).toEqual({ chain: [B.id, C.id], open: false, inherit: true });
    expect(await tree(f.id)).toEqual({ chain: [B.id, C.id, f.id], open: false, inherit: true });
    expect((await node(f.id)).ancestorIds).toEqual([A.id, B.id, C.id]);

    expect(await canBrowse(granted.token, f.id)).toBe(true); // the copy keeps them in
    expect(await canBrowse(direct.token, f.id)).toBe(true);
    expect(await canBrowse(member.token, f.id)).toBe(false); // the space role is cut
    expect(await canBrowse(member.token, A.id)).toBe(true); // above the break it still reaches
    expect(await canBrowse(expired.token, f.id)).toBe(false);
    expect(await canBrowse(owner.token, f.id)).toBe(true); // the space manager stays manager

    const acts = (await activitiesOfNode(t, B.id)).filter((x) => x.action === 'inherit.break');
    expect(acts).toHaveLength(1);
    expect(acts[0]).toMatchObject({ actorUserId: owner.userId });
    expect(
      ((acts[0] as (typeof acts)[number]).detail.copied as { subject: { id: number } }[]).map((c) => c.subject.id),
    ).toEqual([granted.userId, editor.userId, viewOnly.userId]);

    // the same request again changes nothing
    const grants = await rowCount(t, driveNodePermissions);
    const count = await rowCount(t, driveActivities);
    const again = await inherit(owner.token, B.id, { inherit: false });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(data);
    expect(await rowCount(t, driveNodePermissions)).toBe(grants);
    expect(await rowCount(t, driveActivities)).toBe(count);
  });

  it('restores: the parent chain and acl_open come back to the subtree (copied grants stay)', async () => {
    const { A, B, C, f } = await shape('Restore');
    expect((await inherit(owner.token, B.id, { inherit: false, copyInherited: false })).statusCode).toBe(200);
    expect(await grantsOfNode(t, B.id)).toHaveLength(1); // nothing copied
    expect(await canBrowse(granted.token, f.id)).toBe(false);
    expect(await canBrowse(member.token, f.id)).toBe(false);

    const res = await inherit(owner.token, B.id, { inherit: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ inheritPermissions: true, aclOpen: true, breakAt: null });
    expect(await tree(B.id)).toEqual({ chain: [A.id, B.id], open: true, inherit: true });
    expect(await tree(f.id)).toEqual({ chain: [A.id, B.id, C.id, f.id], open: true, inherit: true });
    expect(await canBrowse(granted.token, f.id)).toBe(true);
    expect(await canBrowse(member.token, f.id)).toBe(true);
    expect((await activitiesOfNode(t, B.id)).map((x) => x.action)).toEqual(['inherit.break', 'inherit.restore']);
  });

  it('keeps a break below when one above is restored, and restores under a broken parent', async () => {
    const { A, B, C, f } = await shape('Nested');
    expect((await inherit(owner.token, B.id, { inherit: false })).statusCode).toBe(200);
    expect((await inherit(owner.token, C.id, { inherit: false, copyInherited: false })).statusCode).toBe(200);
    expect(await tree(f.id)).toEqual({ chain: [C.id, f.id], open: false, inherit: true });
    expect(await canBrowse(granted.token, f.id)).toBe(false);

    // restoring B leaves C's own break (and what it cut) alone
    expect((await inherit(owner.token, B.id, { inherit: true })).statusCode).toBe(200);
    expect(await tree(B.id)).toEqual({ chain: [A.id, B.id], open: true, inherit: true });
    expect(await tree(C.id)).toEqual({ chain: [C.id], open: false, inherit: false });
    expect(await tree(f.id)).toEqual({ chain: [C.id, f.id], open: false, inherit: true });

    // break B again, then restore C: C joins B's (broken) chain
    expect((await inherit(owner.token, B.id, { inherit: false, copyInherited: false })).statusCode).toBe(200);
    expect((await inherit(owner.token, C.id, { inherit: true })).statusCode).toBe(200);
    expect(await tree(C.id)).toEqual({ chain: [B.id, C.id], open: false, inherit: true });
    expect(await tree(f.id)).toEqual({ chain: [B.id, C.id, f.id], open: false, inherit: true });
    expect(await canBrowse(direct.token, f.id)).toBe(true);
    expect(await canBrowse(member.token, f.id)).toBe(false);
  });

  it('breaks at a file too, and at a top-level folder', async () => {
    const { A, f } = await shape('File');
    const res = await inherit(owner.token, f.id, { inherit: false, copyInherited: false });
    expect(res.statusCode, res.body).toBe(200);
    expect(await tree(f.id)).toEqual({ chain: [f.id], open: false, inherit: false });
    expect(await canBrowse(granted.token, f.id)).toBe(false);
    expect((await inherit(owner.token, A.id, { inherit: false, copyInherited: false })).statusCode).toBe(200);
    expect(await tree(A.id)).toEqual({ chain: [A.id], open: false, inherit: false });
    expect(await canBrowse(member.token, A.id)).toBe(false);
    expect((await inherit(owner.token, A.id, { inherit: true })).statusCode).toBe(200);
    expect(await tree(A.id)).toEqual({ chain: [A.id], open: true, inherit: true });
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const { B, f } = await shape('Bad');
    const before = [await node(B.id), await node(f.id)];
    const grants = await rowCount(t, driveNodePermissions);
    const acts = await rowCount(t, driveActivities);
    for (const [body, field] of [
      [{}, 'inherit'],
      [{ inherit: 'no' }, 'inherit'],
      [{ inherit: null }, 'inherit'],
      [{ inherit: false, copyInherited: 'yes' }, 'copyInherited'],
    ] as [object, string][]) {
      expectError(await inherit(owner.token, B.id, body), 400, 'request.validation_failed', field);
    }
    expectError(
      await call(t.app, 'PUT', '/api/drive/nodes/-1/inherit', { token: owner.token, body: { inherit: false } }),
      400,
      'request.validation_failed',
      'id',
    );
    expect([await node(B.id), await node(f.id)]).toEqual(before);
    expect(await rowCount(t, driveNodePermissions)).toBe(grants);
    expect(await rowCount(t, driveActivities)).toBe(acts);
  });

  it('needs drive:node:edit and the manager role; another tenant gets 404; an archived space 409', async () => {
    const { B, f } = await shape('Refused');
    const before = [await node(B.id), await node(f.id)];
    const body = { inherit: false };
    expectError(await inherit(viewOnly.token, B.id, body), 403, 'auth.permission_denied');
    expectError(await inherit(editor.token, B.id, body), 403, 'drive.role_too_low');
    // the space's viewers are no managers either
    expectError(await inherit(member.token, B.id, body), 403, 'drive.role_too_low');
    expectError(await inherit(other.adminToken, B.id, body), 404, 'drive.node_not_found');
    const osp = await space(t, other.tenantId, { type: 'team', ownerUserId: other.adminUserId });
    const theirs = await folder(t, other.tenantId, osp.id, null, 'Theirs');
    expectError(await inherit(owner.token, theirs.id, body), 404, 'drive.node_not_found');
    expect((await node(theirs.id)).inheritPermissions).toBe(true);

    await t.database.db.update(driveSpaces).set({ archivedAt: new Date() }).where(eq(driveSpaces.id, sp.id));
    try {
      expectError(await inherit(owner.token, B.id, body), 409, 'drive.space_archived');
    } finally {
      await t.database.db.update(driveSpaces).set({ archivedAt: null }).where(eq(driveSpaces.id, sp.id));
    }
    expect([await node(B.id), await node(f.id)]).toEqual(before);
  });
});
