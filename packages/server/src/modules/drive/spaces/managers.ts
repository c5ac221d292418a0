import type { Db } from '../../../platform/db/client.ts';
import type { DriveDirectory } from '../access/types.ts';
import { managerMembers, type SpaceRow } from './space-repository.ts';

/** The users who manage a space (§5.5): its owner or department head, and manager members (subjects expanded to users). */
export async function spaceManagerIds(db: Db, directory: DriveDirectory, space: SpaceRow): Promise<number[]> {
  const ids = new Set<number>();
  if (space.type !== 'department' && space.ownerUserId !== null) ids.add(space.ownerUserId);
  if (space.type === 'department' && space.departmentId !== null) {
    const head = await directory.departmentHead(space.tenantId, space.departmentId);
    if (head !== null) ids.add(head);
  }
  for (const m of await managerMembers(db, space.id)) {
    for (const id of await directory.usersOfSubject(space.tenantId, { type: m.subjectType, id: m.subjectId }))
      ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}
