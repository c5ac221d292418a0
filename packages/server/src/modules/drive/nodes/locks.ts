import { Type } from 'typebox';
import { envelopeError } from '../../../platform/http/route.ts';
import { Timestamp } from '../../../platform/http/schemas.ts';
import { driveErrors } from '../errors.ts';
import type { NodeRow } from './node-repository.ts';

/**
 * Check-out locks (spec §3.5): while a lock is live, every write by someone else (rename, move,
 * new version, delete) is refused with 423 naming the holder, whatever interface it comes from.
 * An expired lock is no lock.
 */
export function liveLock(node: Pick<NodeRow, 'lockUserId' | 'lockExpiresAt'>, now: Date) {
  return node.lockUserId !== null && node.lockExpiresAt !== null && node.lockExpiresAt > now
    ? { userId: node.lockUserId, expiresAt: node.lockExpiresAt }
    : null;
}

/** The answer of every route whose write assertWritable may refuse, for its document. */
export const lockedNode = {
  423: envelopeError('drive.node_locked: another user has the file checked out', {
    lockedBy: Type.String({ description: 'who holds the lock' }),
    lockExpiresAt: Timestamp,
  }),
};

/** Refuses a write to `node` by `userId` while another user's lock is live; `holderName` names them. */
export async function assertWritable(
  node: Pick<NodeRow, 'lockUserId' | 'lockExpiresAt'>,
  userId: number,
  now: Date,
  holderName: (userId: number) => Promise<string>,
) {
  const lock = liveLock(node, now);
  if (lock && lock.userId !== userId) throw driveErrors.locked(await holderName(lock.userId), lock.expiresAt);
}
