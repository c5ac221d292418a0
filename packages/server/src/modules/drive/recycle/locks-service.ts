import type { Scope } from '../../../platform/auth/principal.ts';
import type { DriveCore } from '../core.ts';
import { driveErrors } from '../errors.ts';
import { liveLock } from '../nodes/locks.ts';
import * as nodes from '../nodes/node-repository.ts';
import { allows, assertAllowed } from '../roles.ts';
import * as repo from './locks-repository.ts';

/**
 * Check-out locks of files (spec §3.5, editor or above): a lock lasts 1–1440 minutes and is
 * renewed by taking it again; while it is live, writes by anyone else are refused with 423
 * (nodes/locks.ts assertWritable). The holder releases it; a manager may break it. An expired
 * lock is no lock.
 */
export const DEFAULT_LOCK_MINUTES = 60;

export type LockView = ReturnType<typeof toLockView>;

export function toLockView(node: nodes.NodeRow, now: Date, holderName: string | null) {
  const lock = liveLock(node, now);
  return {
    locked: lock !== null,
    userId: lock?.userId ?? null,
    userName: lock ? holderName : null,
    lockedAt: lock ? node.lockedAt : null,
    expiresAt: lock?.expiresAt ?? null,
  };
}

export function createLocksService(core: Pick<DriveCore, 'db' | 'clock' | 'access' | 'activities'>) {
  const { db, clock, access, activities } = core;

  /** The view with the holder's name looked up. */
  async function named(scope: Scope, node: nodes.NodeRow, now: Date) {
    const lock = liveLock(node, now);
    return toLockView(node, now, lock ? await access.userName(scope, lock.userId) : null);
  }

  return {
    async get(scope: Scope, id: number): Promise<LockView> {
      const c = await access.caller(scope);
      const { node } = await access.authorizeNode(c, id, 'browse');
      return named(scope, node, clock());
    },

    /** Takes or renews the caller's lock; another user's live lock is a 423 naming them. */
    async take(scope: Scope, id: number, minutes = DEFAULT_LOCK_MINUTES): Promise<LockView> {
      const c = await access.caller(scope);
      const { node } = await access.authorizeNode(c, id, 'lock');
      if (node.type !== 'file') throw driveErrors.notAFile();
      const now = clock();
      const expiresAt = new Date(now.getTime() + minutes * 60_000);
      const locked = await db.transaction(async (tx) => {
        const row = await repo.takeLock(tx, scope, id, c.userId, now, expiresAt);
        if (!row) return null;
        // a renewal keeps the time the lock was first taken
        const renewed = row.lockedAt !== null && row.lockedAt.getTime() < now.getTime();
        await activities.record(tx, scope, [
          { spaceId: row.spaceId, nodeId: row.id, action: 'lock.take', detail: { expiresAt, renewed } },
        ]);
        return row;
      });
      if (!locked) {
        // refused: someone else's live lock (or the node went to the bin meanwhile)
        const current = await nodes.findLiveNode(db, scope, id);
        const lock = current ? liveLock(current, now) : null;
        if (!lock) throw driveErrors.nodeNotFound();
        throw driveErrors.locked(await access.userName(scope, lock.userId), lock.expiresAt);
      }
      return named(scope, locked, now);
    },

    /** The holder releases the lock, a manager breaks another's; anyone else is refused. No live lock: nothing to do. */
    async release(scope: Scope, id: number): Promise<void> {
      const c = await access.caller(scope);
      const { node, space, role } = await access.authorizeNode(c, id, 'browse');
      const now = clock();
      const lock = liveLock(node, now);
      if (!lock) return;
      const own = lock.userId === c.userId;
      if (!own) {
        if (!allows(role, 'breakLock')) throw driveErrors.notLockHolder();
        assertAllowed(role, 'breakLock', { archived: space.archivedAt !== null });
      }
      await db.transaction(async (tx) => {
        if (!(await repo.clearLock(tx, scope, id, lock.userId, now))) return;
        await activities.record(tx, scope, [
          {
            spaceId: node.spaceId,
            nodeId: node.id,
            action: own ? 'lock.release' : 'lock.break',
            detail: own ? {} : { holderId: lock.userId },
          },
        ]);
      });
    },
  };
}

export type LocksService = ReturnType<typeof createLocksService>;
