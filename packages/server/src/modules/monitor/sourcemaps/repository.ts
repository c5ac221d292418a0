import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { tenantFilter } from '../../../platform/db/scoped.ts';
import { platformKey } from '../../../platform/db/tenant-key.ts';
import { errorSourceMaps } from './tables.ts';

/** Everything but the bytes: lists and lookups never load the map itself. */
const meta = {
  id: errorSourceMaps.id,
  tenantId: errorSourceMaps.tenantId,
  release: errorSourceMaps.release,
  fileName: errorSourceMaps.fileName,
  size: errorSourceMaps.size,
  sha256: errorSourceMaps.sha256,
  uploadedBy: errorSourceMaps.uploadedBy,
  createdAt: errorSourceMaps.createdAt,
};
export type SourceMapMeta = {
  id: number;
  tenantId: number | null;
  release: string;
  fileName: string;
  size: number;
  sha256: string;
  uploadedBy: number | null;
  createdAt: Date;
};

type TenantOf = Pick<Scope, 'tenantId'>;

export async function pageMaps(
  db: Db,
  scope: TenantOf,
  q: { page: number; pageSize: number; release?: string },
): Promise<{ list: SourceMapMeta[]; total: number; page: number; pageSize: number }> {
  const where = and(
    tenantFilter(errorSourceMaps, scope),
    q.release !== undefined ? eq(errorSourceMaps.release, q.release) : undefined,
  );
  const list = await db
    .select(meta)
    .from(errorSourceMaps)
    .where(where)
    .orderBy(desc(errorSourceMaps.createdAt), desc(errorSourceMaps.id))
    .limit(q.pageSize)
    .offset((q.page - 1) * q.pageSize);
  const [total] = await db.select({ n: count() }).from(errorSourceMaps).where(where);
  return { list, total: Number(total?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/** Replace semantics: the map of the same release and file name goes in the same transaction. */
export async function replaceMap(
  tx: Db,
  scope: TenantOf,
  values: {
    release: string;
    fileName: string;
    size: number;
    sha256: string;
    content: Buffer;
    uploadedBy: number | null;
  },
): Promise<SourceMapMeta> {
  await tx
    .delete(errorSourceMaps)
    .where(
      and(
        tenantFilter(errorSourceMaps, scope),
        eq(errorSourceMaps.release, values.release),
        eq(errorSourceMaps.fileName, values.fileName),
      ),
    );
  const [row] = await tx
    .insert(errorSourceMaps)
    .values({ ...values, tenantId: platformKey(scope.tenantId) })
    .returning(meta);
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function deleteMap(db: Db, scope: TenantOf, id: number): Promise<boolean> {
  const rows = await db
    .delete(errorSourceMaps)
    .where(and(tenantFilter(errorSourceMaps, scope), eq(errorSourceMaps.id, id)))
    .returning({ id: errorSourceMaps.id });
  return rows.length > 0;
}

/** The maps of one release for the given bundle names (metadata only). */
export async function mapsFor(db: Db, scope: TenantOf, release: string, fileNames: string[]) {
  if (!fileNames.length) return [];
  return db
    .select({ id: errorSourceMaps.id, fileName: errorSourceMaps.fileName, sha256: errorSourceMaps.sha256 })
    .from(errorSourceMaps)
    .where(
      and(
        tenantFilter(errorSourceMaps, scope),
        eq(errorSourceMaps.release, release),
        inArray(errorSourceMaps.fileName, fileNames),
      ),
    );
}

export async function mapContent(db: Db, id: number): Promise<Buffer | null> {
  const [row] = await db
    .select({ content: errorSourceMaps.content })
    .from(errorSourceMaps)
    .where(eq(errorSourceMaps.id, id))
    .limit(1);
  return row?.content ?? null;
}
