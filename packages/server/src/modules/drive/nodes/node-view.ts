import type { DriveDirectory } from '../access/types.ts';
import { roleOfRank } from '../roles.ts';
import type { NodeViewRow } from './listing-repository.ts';
import { liveLock } from './locks.ts';

/** A node as the caller sees it: the node, their star, the live lock and its holder, their role. */
export function toNodeView(row: NodeViewRow, now: Date, holderNames: Map<number, string>) {
  const lock = liveLock(row, now);
  return {
    id: row.id,
    spaceId: row.spaceId,
    parentId: row.parentId,
    type: row.type,
    name: row.name,
    size: row.size,
    mime: row.mime,
    versionNo: row.versionNo,
    currentVersionId: row.currentVersionId,
    createdBy: row.createdBy,
    updatedBy: row.updatedBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    starred: row.starred,
    lock: lock && {
      userId: lock.userId,
      name: holderNames.get(lock.userId) ?? `user #${lock.userId}`,
      expiresAt: lock.expiresAt,
    },
    inheritPermissions: row.inheritPermissions,
    myRole: roleOfRank(row.rank),
  };
}

export type NodeView = ReturnType<typeof toNodeView>;

/** Display names of users (lock holders, granters) in one call to identity. */
export async function userNames(directory: DriveDirectory, tenantId: number | null, ids: (number | null)[]) {
  const unique = [...new Set(ids.filter((id): id is number => id !== null))];
  if (unique.length === 0) return new Map<number, string>();
  const named = await directory.describeSubjects(
    tenantId,
    unique.map((id) => ({ type: 'user' as const, id })),
  );
  return new Map(named.map((s) => [s.id, s.name]));
}

/** The views of rows, their lock holders named in one call. */
export async function toNodeViews<R extends NodeViewRow>(
  directory: DriveDirectory,
  tenantId: number | null,
  rows: R[],
  now: Date,
): Promise<(NodeView & Omit<R, keyof NodeViewRow>)[]> {
  const names = await userNames(
    directory,
    tenantId,
    rows.map((r) => liveLock(r, now)?.userId ?? null),
  );
  return rows.map((r) => {
    const { rank: _rank, lockUserId: _u, lockExpiresAt: _e, ...rest } = r;
    return { ...rest, ...toNodeView(r, now, names) } as NodeView & Omit<R, keyof NodeViewRow>;
  });
}
