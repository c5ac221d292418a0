import type { DriveCaller } from '../access/access-service.ts';
import type { DriveCore } from '../core.ts';
import type { SpaceRow } from '../spaces/space-repository.ts';
import * as listing from './listing-repository.ts';
import { toNodeViews } from './node-view.ts';

/**
 * How the caller sees nodes: their access in each space concerned, as the listings' SQL input, and
 * the views of nodes by id (what a write answers). Shared by the node, move and copy services.
 */
export function createNodeViewService(core: Pick<DriveCore, 'db' | 'access' | 'directory' | 'clock'>) {
  const { db, access, directory } = core;

  /** The caller's space role rank in each space: the input of the listings' per-row role. */
  async function accessIn(c: DriveCaller, spaces: SpaceRow[]): Promise<listing.ListingAccess> {
    const spaceRanks = new Map<number, number>();
    let now = core.clock();
    for (const space of spaces) {
      const a = await access.listingAccess(c, space);
      spaceRanks.set(space.id, a.spaceRank);
      now = a.now;
    }
    return { set: c.set, now, spaceRanks };
  }

  return {
    accessIn,

    /** The caller's access in the spaces of these ids (the personal views span spaces). */
    async accessInSpaces(c: DriveCaller, spaceIds: number[]) {
      return accessIn(c, await listing.spacesByIds(db, c.scope, spaceIds));
    },

    /** The views of the given nodes of one space, in id order. */
    async byIds(c: DriveCaller, space: SpaceRow, ids: number[]) {
      const a = await accessIn(c, [space]);
      return toNodeViews(directory, c.scope.tenantId, await listing.nodeViewRows(db, c.scope, c.userId, a, ids), a.now);
    },
  };
}

export type NodeViewService = ReturnType<typeof createNodeViewService>;
