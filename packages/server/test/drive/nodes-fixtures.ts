import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { lockNode, type NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import { lockSpace, type SpaceRow } from '../../src/modules/drive/spaces/space-repository.ts';
import {
  type DriveRole,
  driveNodePermissions,
  driveNodes,
  driveSpaceMembers,
  driveSpaces,
  type SubjectType,
} from '../../src/modules/drive/tables.ts';
import { systemScope } from '../../src/platform/auth/principal.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { createUserWithPermissions, twoTenants } from '../helpers/fixtures.ts';
import { driveUser, space } from './drive-fixtures.ts';

/** Set-up of the node tests: members, grants, locks and reads written straight to the drive's tables. */
export async function member(
  t: TestApp,
  tenantId: number,
  spaceId: number,
  subject: { type: SubjectType; id: number },
  role: DriveRole,
) {
  await t.database.db
    .insert(driveSpaceMembers)
    .values({ tenantId, spaceId, subjectType: subject.type, subjectId: subject.id, role });
}

export async function grant(
  t: TestApp,
  tenantId: number,
  node: { id: number; spaceId: number },
  subject: { type: SubjectType; id: number },
  role: DriveRole,
  opts: { expiresAt?: Date; createdBy?: number } = {},
) {
  await t.database.db.insert(driveNodePermissions).values({
    tenantId,
    spaceId: node.spaceId,
    nodeId: node.id,
    subjectType: subject.type,
    subjectId: subject.id,
    role,
    expiresAt: opts.expiresAt ?? null,
    createdBy: opts.createdBy ?? null,
  });
}

/** Checks a node out for `userId` until `until` (the lock columns, as the lock route would set them). */
export async function lockFor(t: TestApp, nodeId: number, userId: number, until = new Date(Date.now() + 3600_000)) {
  await t.database.db
    .update(driveNodes)
    .set({ lockUserId: userId, lockedAt: new Date(), lockExpiresAt: until })
    .where(eq(driveNodes.id, nodeId));
}

export async function nodeRow(t: TestApp, id: number) {
  const [row] = await t.database.db.select().from(driveNodes).where(eq(driveNodes.id, id));
  return row;
}

export async function usedBytes(t: TestApp, spaceId: number): Promise<number> {
  const [row] = await t.database.db
    .select({ used: driveSpaces.usedBytes })
    .from(driveSpaces)
    .where(eq(driveSpaces.id, spaceId));
  return Number(row?.used);
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A request that must succeed with `status` (200 default); answers the envelope's data. */
export async function ok(t: TestApp, method: Method, url: string, token: string, body?: unknown, status = 200) {
  const res = await call(t.app, method, url, { token, ...(body !== undefined ? { body } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json().data;
}

export const names = (list: { name: string }[]) => list.map((n) => n.name);

/** A further version of a file (real stored content, charged to its space like an upload). */
export async function addVersion(t: TestApp, tenantId: number, node: NodeRow, content: string) {
  const scope = systemScope(tenantId);
  const stored = await t.app.files.store(scope, {
    body: Readable.from([Buffer.from(content)]),
    name: node.name,
    declaredMime: 'text/plain',
    visibility: 'restricted',
    maxBytes: 1024 ** 3,
    policy: { mimeAllowList: null, blockedExtensions: [] },
  });
  return t.database.db.transaction(async (tx) => {
    const sp = (await lockSpace(tx, scope, node.spaceId)) as SpaceRow;
    const locked = (await lockNode(tx, scope, node.id)) as NodeRow;
    return (await t.app.drive.core.versions.append(tx, scope, sp, locked, stored, { fromUpload: true })).node;
  });
}

/**
 * The cast of the node tests: a team space of `owner` with an editor and a viewer member, a drive
 * user with no role in it, a user with read-only menu permissions, and another tenant.
 */
export async function teamWorld(t: TestApp) {
  const tenantId = t.demoTenantId;
  const owner = await driveUser(t);
  const editor = await driveUser(t);
  const viewer = await driveUser(t);
  const outsider = await driveUser(t);
  const viewOnly = await createUserWithPermissions(t, ['drive:space:view', 'drive:node:view']);
  const { other } = await twoTenants(t);
  const s = await space(t, tenantId, { ownerUserId: owner.userId });
  await member(t, tenantId, s.id, { type: 'user', id: editor.userId }, 'editor');
  await member(t, tenantId, s.id, { type: 'user', id: viewer.userId }, 'viewer');
  return { tenantId, owner, editor, viewer, outsider, viewOnly, other, s };
}
