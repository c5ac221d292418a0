import { and, count, desc, eq, ne, type SQL, sql } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { platformKey } from '../../platform/db/tenant-key.ts';
import { type FileVisibility, fileObjects, fileRefs, managedFiles } from './tables.ts';

/** Queries of managed files and their references; every tenant read goes through the scope. */
export const fileRows = scoped(managedFiles);
export type FileRow = typeof managedFiles.$inferSelect;
type TenantScope = Pick<Scope, 'tenantId'>;
export type RefOwner = { type: string; id: number };

/** A file with the object behind it: what metadata and downloads need. */
const withObject = {
  id: managedFiles.id,
  tenantId: managedFiles.tenantId,
  objectId: managedFiles.objectId,
  name: managedFiles.name,
  mime: managedFiles.mime,
  declaredMime: managedFiles.declaredMime,
  size: managedFiles.size,
  visibility: managedFiles.visibility,
  ownerUserId: managedFiles.ownerUserId,
  createdAt: managedFiles.createdAt,
  sha256: fileObjects.sha256,
  storageKey: fileObjects.storageKey,
  storageConfigId: fileObjects.storageConfigId,
};
export type FileWithObject = FileRow & { sha256: string; storageKey: string; storageConfigId: number | null };

/** A file somebody still uses; one whose references are all gone waits for collection, unseen. */
const referenced = sql`exists (select 1 from ${fileRefs} where ${fileRefs.fileId} = ${managedFiles.id})`;
/** What the general file routes may show: drive files (restricted) are the drive's (spec §4.3 rule 4). */
const general = and(ne(managedFiles.visibility, 'restricted'), referenced);

async function selectOne(db: Db, where: SQL | undefined): Promise<FileWithObject | null> {
  const rows = await db
    .select(withObject)
    .from(managedFiles)
    .innerJoin(fileObjects, eq(fileObjects.id, managedFiles.objectId))
    .where(where)
    .limit(1);
  return (rows[0] as FileWithObject | undefined) ?? null;
}

/** A file of the caller's tenant as the general routes see it. */
export function findGeneral(db: Db, scope: TenantScope, id: number) {
  return selectOne(db, fileRows.where(scope, and(eq(managedFiles.id, id), general)));
}

/**
 * A public file of any tenant. Deliberately not tenant-scoped: "public" means readable by
 * anyone holding the link (docs/decisions/0007-managed-files.md).
 */
export function findPublic(db: Db, id: number) {
  return selectOne(db, and(eq(managedFiles.id, id), eq(managedFiles.visibility, 'public'), referenced));
}

/** A file of the caller's tenant that `owner` references, whatever its visibility (owners serve their restricted files). */
export function findOwnedBy(db: Db, scope: TenantScope, id: number, owner: RefOwner) {
  const holds = sql`exists (select 1 from ${fileRefs} where ${fileRefs.fileId} = ${managedFiles.id}
    and ${fileRefs.ownerType} = ${owner.type} and ${fileRefs.ownerId} = ${owner.id})`;
  return selectOne(db, fileRows.where(scope, and(eq(managedFiles.id, id), holds)));
}

/** The file of the caller's tenant that `owner` references (an owner holding one file: a drive version). */
export function findReferencedBy(db: Db, scope: TenantScope, owner: RefOwner) {
  const held = sql`${managedFiles.id} = (select ${fileRefs.fileId} from ${fileRefs}
    where ${fileRefs.ownerType} = ${owner.type} and ${fileRefs.ownerId} = ${owner.id} limit 1)`;
  return selectOne(db, fileRows.where(scope, held));
}

/** Any file of the caller's tenant, referenced or not, any visibility (the reference service). */
export async function findForReference(db: Db, scope: TenantScope, id: number) {
  const rows = await db
    .select({ id: managedFiles.id, objectId: managedFiles.objectId })
    .from(managedFiles)
    .where(fileRows.where(scope, eq(managedFiles.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

export async function pageFiles(
  db: Db,
  scope: TenantScope,
  q: PageRequest & { keyword?: string; visibility?: Exclude<FileVisibility, 'restricted'> },
) {
  const cond = fileRows.where(
    scope,
    and(
      general,
      q.keyword ? contains(managedFiles.name, q.keyword) : undefined,
      q.visibility ? eq(managedFiles.visibility, q.visibility) : undefined,
    ),
  );
  const [list, totals] = await Promise.all([
    db
      .select(withObject)
      .from(managedFiles)
      .innerJoin(fileObjects, eq(fileObjects.id, managedFiles.objectId))
      .where(cond)
      .orderBy(desc(managedFiles.id))
      .limit(q.pageSize)
      .offset((q.page - 1) * q.pageSize),
    db.select({ n: count() }).from(managedFiles).where(cond),
  ]);
  return { list: list as FileWithObject[], total: Number(totals[0]?.n ?? 0), page: q.page, pageSize: q.pageSize };
}

/**
 * Adds the reference to a file of the scope's tenant, which it carries; false when the owner
 * already held it (a repeat changes nothing).
 */
export async function insertRef(db: Db, scope: TenantScope, fileId: number, owner: RefOwner): Promise<boolean> {
  const rows = await db
    .insert(fileRefs)
    .values({ tenantId: platformKey(scope.tenantId), fileId, ownerType: owner.type, ownerId: owner.id })
    .onConflictDoNothing({ target: [fileRefs.fileId, fileRefs.ownerType, fileRefs.ownerId] })
    .returning({ id: fileRefs.id });
  return rows.length > 0;
}

/** Removes the reference; false when the owner did not hold it. */
export async function deleteRef(db: Db, fileId: number, owner: RefOwner): Promise<boolean> {
  const rows = await db
    .delete(fileRefs)
    .where(and(eq(fileRefs.fileId, fileId), eq(fileRefs.ownerType, owner.type), eq(fileRefs.ownerId, owner.id)))
    .returning({ id: fileRefs.id });
  return rows.length > 0;
}
