import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { PageRequest } from '../../../platform/db/scoped.ts';
import { isUniqueViolation } from '../../../platform/db/sql.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import * as repo from './device-repository.ts';
import { pushErrors } from './errors.ts';
import type { PushPlatform } from './tables.ts';

export function toPushDeviceView(row: repo.PushDeviceRow) {
  const { tenantId: _tenant, ...rest } = row;
  return rest;
}

function callerId(scope: Scope): number {
  const user = userOf(scope);
  if (!user) throw httpErrors.unauthenticated();
  return user.userId;
}

/**
 * The signed-in user's push devices. A registration id identifies one app installation, so
 * binding an id that is already bound (after a sign-in by someone else on that phone) moves it to
 * the caller: the previous user stops receiving pushes on a device they no longer use.
 */
export function createPushDeviceService(ctx: AppContext) {
  const { db, clock } = ctx;

  return {
    async bind(
      scope: Scope,
      input: { platform: PushPlatform; registrationId: string; deviceName?: string; appVersion?: string },
    ) {
      const userId = callerId(scope);
      const binding = {
        platform: input.platform,
        registrationId: input.registrationId,
        deviceName: input.deviceName ?? '',
        appVersion: input.appVersion ?? '',
      };
      const now = clock();
      const moved = await repo.rebind(db, scope, userId, binding, now);
      if (moved) return toPushDeviceView(moved);
      try {
        return toPushDeviceView(
          await repo.devices.insert(db, scope, { ...binding, userId, lastSeenAt: now, createdAt: now, updatedAt: now }),
        );
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // bound by a concurrent request between the update and the insert: take it over now
        const taken = await repo.rebind(db, scope, userId, binding, now);
        if (!taken) throw pushErrors.deviceConflict();
        return toPushDeviceView(taken);
      }
    },

    async mine(scope: Scope, q: PageRequest & { status?: 'active' | 'inactive' }) {
      const page = await repo.pageUserDevices(db, scope, callerId(scope), q);
      return { ...page, list: page.list.map(toPushDeviceView) };
    },

    /** Another user's device is not found, like another tenant's. */
    async unbind(scope: Scope, id: number) {
      if (!(await repo.deleteUserDevice(db, scope, callerId(scope), id))) throw pushErrors.deviceNotFound();
    },
  };
}

export type PushDeviceService = ReturnType<typeof createPushDeviceService>;
