import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { isForeignKeyViolation } from '../../platform/db/sql.ts';
import { filesErrors } from './errors.ts';
import { deleteRef, findForReference, insertRef, type RefOwner } from './file-repository.ts';
import { decrementRefs, incrementRefs } from './object-repository.ts';

/**
 * Reference counting of managed files (spec §2.2). Owners — a notice image, a drive version,
 * an export result — add and drop references inside their own transaction (`tx`), so a
 * rolled-back owner change leaves the counts as they were. Counts live on the stored object;
 * at 0 it is orphaned and collected 24 hours later unless referenced again meanwhile.
 */
export function createReferences(ctx: Pick<AppContext, 'clock'>) {
  return {
    /**
     * Adds `owner`'s reference to a file of the caller's tenant; a repeat is a no-op (false).
     * Refused with 409 `files.object_deleting` once the collector has claimed the object.
     */
    async addRef(tx: Db, scope: Pick<Scope, 'tenantId'>, fileId: number, owner: RefOwner): Promise<boolean> {
      const file = await findForReference(tx, scope, fileId);
      if (!file) throw filesErrors.fileNotFound();
      try {
        if (!(await insertRef(tx, scope, fileId, owner))) return false;
      } catch (err) {
        // the collector removed the file between the read and the insert
        if (isForeignKeyViolation(err)) throw filesErrors.fileNotFound();
        throw err;
      }
      if (!(await incrementRefs(tx, file.objectId))) {
        // Undo the row too, so a caller that catches the error and commits keeps no dangling reference.
        await deleteRef(tx, fileId, owner);
        throw filesErrors.objectDeleting();
      }
      return true;
    },

    /** Drops `owner`'s reference; false when it held none. The last one orphans the object. */
    async dropRef(tx: Db, scope: Pick<Scope, 'tenantId'>, fileId: number, owner: RefOwner): Promise<boolean> {
      const file = await findForReference(tx, scope, fileId);
      if (!file) throw filesErrors.fileNotFound();
      if (!(await deleteRef(tx, fileId, owner))) return false;
      await decrementRefs(tx, file.objectId, ctx.clock());
      return true;
    },
  };
}

export type References = ReturnType<typeof createReferences>;
