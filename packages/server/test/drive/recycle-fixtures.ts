import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import {
  type DriveRole,
  driveActivities,
  driveNodes,
  driveSpaceMembers,
  driveSpaces,
} from '../../src/modules/drive/tables.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { rowById } from '../helpers/assert.ts';
import { DRIVE_USER, type DriveUser, driveUser, space } from './drive-fixtures.ts';

/**
 * The recycle-bin, lock and legal-hold tests' world: a team space with its owner (manager), an
 * editor and a viewer member, a user of the tenant with every drive permission but no role in
 * the space, users short of a menu permission, and another tenant with its own administrator.
 */
export async function member(t: TestApp, tenantId: number, spaceId: number, userId: number, role: DriveRole) {
  await t.database.db
    .insert(driveSpaceMembers)
    .values({ tenantId, spaceId, subjectType: 'user', subjectId: userId, role });
}

export type World = Awaited<ReturnType<typeof world>>;

export async function world(t: TestApp) {
  const tenantId = t.demoTenantId;
  const owner = await driveUser(t);
  const editor = await driveUser(t);
  const editor2 = await driveUser(t);
  const viewer = await driveUser(t);
  const stranger = await driveUser(t);
  /** an editor of the space whose menu role may only view */
  const viewOnly = await driveUser(t, { permissions: ['drive:node:view', 'drive:space:view'] });
  const noPerm = await driveUser(t, { permissions: [] });
  /** a drive administrator (manager everywhere; legal holds) */
  const admin = await driveUser(t, { permissions: [...DRIVE_USER, 'drive:admin:space:edit'] });
  const sp = await space(t, tenantId, { ownerUserId: owner.userId });
  await member(t, tenantId, sp.id, editor.userId, 'editor');
  await member(t, tenantId, sp.id, editor2.userId, 'editor');
  await member(t, tenantId, sp.id, viewer.userId, 'viewer');
  await member(t, tenantId, sp.id, viewOnly.userId, 'editor');
  return { tenantId, owner, editor, editor2, viewer, stranger, viewOnly, noPerm, admin, space: sp };
}

/** Random content: identical bytes would share one stored object. */
export const unique = (label: string, size = 64) =>
  Buffer.concat([Buffer.from(`${label}:`), randomBytes(size)]).subarray(0, size);

export const node = async (t: TestApp, id: number) => rowById(t, driveNodes, id);

export const usedBytes = async (t: TestApp, spaceId: number) => (await rowById(t, driveSpaces, spaceId))?.usedBytes;

export async function activitiesOf(t: TestApp, nodeId: number) {
  return t.database.db
    .select()
    .from(driveActivities)
    .where(eq(driveActivities.nodeId, nodeId))
    .orderBy(driveActivities.id);
}

/** Nodes in a recycle bin, and activities: what a refused request must leave as it was. */
export async function snapshot(t: TestApp) {
  const [r] = await t.database.db
    .select({
      deleted: sql<number>`count(*) filter (where ${driveNodes.deletedAt} is not null)::int`,
      nodes: sql<number>`count(*)::int`,
      locked: sql<number>`count(*) filter (where ${driveNodes.lockUserId} is not null)::int`,
    })
    .from(driveNodes);
  const [a] = await t.database.db.select({ n: sql<number>`count(*)::int` }).from(driveActivities);
  return { ...r, activities: a?.n };
}

export const del = (t: TestApp, user: DriveUser | { token: string }, ids: number[]) =>
  call(t.app, 'DELETE', '/api/drive/nodes/batch', { token: user.token, body: { ids } });

export const restore = (t: TestApp, user: { token: string }, ids: number[]) =>
  call(t.app, 'POST', '/api/drive/nodes/recycle/restore', { token: user.token, body: { ids } });

export const purge = (t: TestApp, user: { token: string }, ids: number[]) =>
  call(t.app, 'POST', '/api/drive/nodes/recycle/purge', { token: user.token, body: { ids } });

export const bin = (t: TestApp, user: { token: string }, spaceId: number, query = '') =>
  call(t.app, 'GET', `/api/drive/nodes/recycle?spaceId=${spaceId}${query}`, { token: user.token });

export async function ok(res: { statusCode: number; body: string; json(): { data: unknown } }) {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The subtree of `rootId` (the root included), from the database. */
export async function tree(t: TestApp, rootId: number) {
  return t.database.db
    .select()
    .from(driveNodes)
    .where(sql`${driveNodes.id} = ${rootId} or ${driveNodes.ancestorIds} @> array[${rootId}]::int[]`)
    .orderBy(driveNodes.id);
}
