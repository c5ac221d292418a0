import { and, eq } from 'drizzle-orm';
import { driveAccessRequests } from '../../src/modules/drive/tables.ts';
import { notificationOutbox } from '../../src/modules/messaging/dispatch/tables.ts';
import type { TestApp } from '../helpers/app.ts';

/** Inspection helpers of the access-request tests. */

export const requestsOfNode = (t: TestApp, nodeId: number) =>
  t.database.db
    .select()
    .from(driveAccessRequests)
    .where(eq(driveAccessRequests.nodeId, nodeId))
    .orderBy(driveAccessRequests.id);

/** The recipients and variables of each notification of `event` in a tenant, oldest first. */
export async function notificationsOf(t: TestApp, tenantId: number, event: string) {
  const rows = await t.database.db
    .select()
    .from(notificationOutbox)
    .where(and(eq(notificationOutbox.tenantId, tenantId), eq(notificationOutbox.eventKey, event)))
    .orderBy(notificationOutbox.id);
  return rows.map((r) => ({
    userIds: r.input.recipients.map((x) => (x.type === 'user' ? x.id : -1)).sort((a, b) => a - b),
    variables: r.input.variables,
  }));
}
