import type { AppContext } from '../../platform/context.ts';
import { claimOrphans, deleteObjectRows } from './object-repository.ts';
import type { StorageResolver } from './storage-resolver.ts';

/** Spec §8: an orphaned managed file is collected after 24 hours. */
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;
const BATCH = 100;

/**
 * Collects objects orphaned for more than 24 hours: claims them (`deleting`, after which no
 * reference can land on them), deletes their bytes from the provider, then their rows. An
 * object whose bytes cannot be deleted stays `deleting` and is retried by the next run.
 */
export function createCollector(ctx: Pick<AppContext, 'db' | 'clock' | 'log'>, resolver: StorageResolver) {
  return {
    async collectOrphans(now: Date = ctx.clock()): Promise<{ deleted: number }> {
      const cutoff = new Date(now.getTime() - ORPHAN_GRACE_MS);
      let deleted = 0;
      for (;;) {
        const claimed = await claimOrphans(ctx.db, cutoff, BATCH);
        let failed = 0;
        for (const object of claimed) {
          try {
            const provider = await resolver.byConfigId(object.storageConfigId);
            await provider.delete(object.storageKey);
            await ctx.db.transaction((tx) => deleteObjectRows(tx, object.id));
            deleted++;
          } catch (err) {
            failed++;
            ctx.log.error({ err, objectId: object.id }, 'files: could not collect an orphaned object');
          }
        }
        // a short batch is the last one; failures wait for the next run instead of looping here
        if (claimed.length < BATCH || failed > 0) return { deleted };
      }
    },
  };
}

export type Collector = ReturnType<typeof createCollector>;
