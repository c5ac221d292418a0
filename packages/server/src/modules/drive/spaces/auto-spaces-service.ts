import type { Scope } from '../../../platform/auth/principal.ts';
import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import type { NewSpace, SpaceRow } from './space-repository.ts';
import * as repo from './space-repository.ts';

/** Longest space name (spaces/schemas.ts). */
export const MAX_SPACE_NAME = 100;

/**
 * Spaces the system makes on first access (spec §2.2): "my spaces" and a share link's save to
 * my drive both need the caller's personal space. The activity only for the request that created it.
 */
export async function createSpaceAutomatically(
  core: Pick<DriveCore, 'db' | 'activities'>,
  scope: Scope,
  row: NewSpace,
) {
  await core.db.transaction(async (tx) => {
    const created = await repo.insertSpaceIfAbsent(tx, scope, row);
    if (created) {
      await core.activities.record(tx, scope, [
        { spaceId: created.id, nodeId: null, action: 'space.create', detail: { type: row.type, automatic: true } },
      ]);
    }
  });
}

/** The caller's personal space, created now when they have none. */
export async function personalSpaceOf(
  core: Pick<DriveCore, 'db' | 'activities' | 'access'>,
  c: DriveCaller,
): Promise<SpaceRow> {
  const found = await repo.findPersonalSpace(core.db, c.scope, c.userId);
  if (found) return found;
  const name = `${await core.access.userName(c.scope, c.userId)}'s files`.slice(0, MAX_SPACE_NAME);
  await createSpaceAutomatically(core, c.scope, { type: 'personal', name, ownerUserId: c.userId, createdBy: c.userId });
  const row = await repo.findPersonalSpace(core.db, c.scope, c.userId);
  if (!row) throw new Error(`personal space of user ${c.userId} missing after insert`);
  return row;
}
