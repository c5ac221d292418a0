import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { type PushPlatform, pushDevices } from './tables.ts';

/** Queries of push devices; every one goes through the tenant scope. */
export const devices = scoped(pushDevices);
type TenantScope = Pick<Scope, 'tenantId'>;
export type PushDeviceRow = typeof pushDevices.$inferSelect;
export type DeviceBinding = { platform: PushPlatform; registrationId: string; deviceName: string; appVersion: string };

const ofUser = (userId: number) => eq(pushDevices.userId, userId);

export function pageUserDevices(
  db: Db,
  scope: TenantScope,
  userId: number,
  q: PageRequest & { status?: 'active' | 'inactive' },
) {
  const filter = q.status ? and(ofUser(userId), eq(pushDevices.status, q.status)) : ofUser(userId);
  return devices.page(db, scope, q, filter, desc(pushDevices.lastSeenAt));
}

export function activeUserDevices(db: Db, scope: TenantScope, userId: number): Promise<PushDeviceRow[]> {
  return devices.findMany(db, scope, and(ofUser(userId), eq(pushDevices.status, 'active')));
}

/** Moves an already bound registration id to `userId` (and reactivates it); null when it is not bound. */
export async function rebind(
  db: Db,
  scope: TenantScope,
  userId: number,
  b: DeviceBinding,
  now: Date,
): Promise<PushDeviceRow | null> {
  const [row] = await db
    .update(pushDevices)
    .set({ ...b, userId, status: 'active', lastSeenAt: now, updatedAt: now })
    .where(devices.where(scope, eq(pushDevices.registrationId, b.registrationId)))
    .returning();
  return row ?? null;
}

/** Deletes one of the user's own devices; returns whether a row went. */
export async function deleteUserDevice(db: Db, scope: TenantScope, userId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(pushDevices)
    .where(devices.where(scope, and(eq(pushDevices.id, id), ofUser(userId))))
    .returning({ id: pushDevices.id });
  return rows.length > 0;
}

/** Marks registration ids the provider does not know as inactive. */
export async function deactivate(db: Db, scope: TenantScope, registrationIds: string[], now: Date): Promise<void> {
  if (registrationIds.length === 0) return;
  await db
    .update(pushDevices)
    .set({ status: 'inactive', updatedAt: now })
    .where(devices.where(scope, inArray(pushDevices.registrationId, registrationIds)));
}
