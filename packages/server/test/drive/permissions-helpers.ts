import { and, eq } from 'drizzle-orm';
import type { DriveCaller } from '../../src/modules/drive/access/access-service.ts';
import type { NodeRow } from '../../src/modules/drive/nodes/node-repository.ts';
import {
  type DriveRole,
  driveActivities,
  driveNodePermissions,
  type SubjectType,
} from '../../src/modules/drive/tables.ts';
import { roles, userGroupMembers, userGroups, userRoles } from '../../src/modules/identity/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import type { Scope } from '../../src/platform/auth/principal.ts';
import type { TestApp } from '../helpers/app.ts';

/** Setup and inspection helpers of the permission, access and activity tests. */

/** A grant written straight into the table (setup; the routes are tested on their own). */
export async function grant(
  t: TestApp,
  tenantId: number,
  node: Pick<NodeRow, 'id' | 'spaceId'>,
  subject: { type: SubjectType; id: number },
  role: DriveRole,
  expiresAt: Date | null = null,
) {
  const [row] = await t.database.db
    .insert(driveNodePermissions)
    .values({
      tenantId,
      spaceId: node.spaceId,
      nodeId: node.id,
      subjectType: subject.type,
      subjectId: subject.id,
      role,
      expiresAt,
    })
    .returning();
  if (!row) throw new Error('grant insert failed');
  return row;
}

export async function userGroup(t: TestApp, tenantId: number, userIds: number[]) {
  const [g] = await t.database.db
    .insert(userGroups)
    .values({ tenantId, name: `group-${Math.random().toString(36).slice(2, 10)}` })
    .returning();
  if (!g) throw new Error('group insert failed');
  if (userIds.length)
    await t.database.db.insert(userGroupMembers).values(userIds.map((userId) => ({ tenantId, groupId: g.id, userId })));
  return g;
}

/** A role (no menu permissions) held by the users. */
export async function plainRole(t: TestApp, tenantId: number, userIds: number[]) {
  const code = `role-${Math.random().toString(36).slice(2, 10)}`;
  const [r] = await t.database.db.insert(roles).values({ tenantId, code, name: code }).returning();
  if (!r) throw new Error('role insert failed');
  if (userIds.length)
    await t.database.db.insert(userRoles).values(userIds.map((userId) => ({ tenantId, userId, roleId: r.id })));
  return r;
}

/** The drive's view of a signed-in user, built as a request would (menu permissions as given). */
export function callerOf(
  t: TestApp,
  tenantId: number | null,
  userId: number,
  opts: { permissions?: string[]; isSuper?: boolean; userTenantId?: number | null } = {},
): Promise<DriveCaller> {
  const scope: Scope = {
    tenantId,
    principal: {
      kind: 'user',
      userId,
      tenantId: opts.userTenantId === undefined ? tenantId : opts.userTenantId,
      username: `user${userId}`,
      isSuper: opts.isSuper ?? false,
      permissions: new Set(opts.permissions ?? []),
      sessionId: 0,
    },
    requestId: 'test',
    ip: '127.0.0.1',
  };
  return t.app.drive.core.access.caller(scope);
}

export const grantsOfNode = (t: TestApp, nodeId: number) =>
  t.database.db
    .select()
    .from(driveNodePermissions)
    .where(eq(driveNodePermissions.nodeId, nodeId))
    .orderBy(driveNodePermissions.id);

export const activitiesOfNode = (t: TestApp, nodeId: number) =>
  t.database.db.select().from(driveActivities).where(eq(driveActivities.nodeId, nodeId)).orderBy(driveActivities.id);

/** The recipients of each drive.node.shared notification of a tenant, oldest first. */
export async function sharedNotifications(t: TestApp, tenantId: number) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, 'drive.node.shared')))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({
    userIds: r.input.recipients.map((x) => (x.type === 'user' ? x.id : -1)).sort((a, b) => a - b),
    variables: r.input.variables,
    link: r.input.link,
  }));
}
