import { createHash } from 'node:crypto';
import type { Static } from 'typebox';
import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { sourceMapErrors } from './errors.ts';
import * as repo from './repository.ts';
import type { SourceMapQuery } from './schemas.ts';
import { checkSourceMap } from './validate.ts';

function toSourceMapView(row: repo.SourceMapMeta) {
  return {
    id: row.id,
    release: row.release,
    fileName: row.fileName,
    size: row.size,
    sha256: row.sha256,
    uploadedBy: row.uploadedBy,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Source maps per release and bundle file name (spec §4.6 rule 5, §8: at most 20 MB). */
export function createSourceMapService(ctx: AppContext) {
  const { db } = ctx;
  return {
    async list(scope: Scope, q: Static<typeof SourceMapQuery>) {
      const page = await repo.pageMaps(db, scope, q);
      return { ...page, list: page.list.map(toSourceMapView) };
    },

    /** Checked before anything is written; an existing map of the release and file name is replaced. */
    async upload(scope: Scope, input: { release: string; fileName: string; content: Buffer }) {
      checkSourceMap(input.content);
      const values = {
        release: input.release,
        fileName: input.fileName,
        content: input.content,
        size: input.content.length,
        sha256: createHash('sha256').update(input.content).digest('hex'),
        uploadedBy: userOf(scope)?.userId ?? null,
      };
      const row = await db.transaction((tx) => repo.replaceMap(tx, scope, values));
      return toSourceMapView(row);
    },

    async remove(scope: Scope, id: number) {
      if (!(await repo.deleteMap(db, scope, id))) throw sourceMapErrors.notFound();
    },
  };
}

export type SourceMapService = ReturnType<typeof createSourceMapService>;
