import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type Page, type PageRequest, scoped } from '../../../platform/db/scoped.ts';
import { driveCollectSubmissions, driveNodes, driveShareLinks } from '../tables.ts';

/** Collection links' counters and their records (drive_collect_submissions). */
type TenantScope = Pick<Scope, 'tenantId'>;
export type SubmissionRow = typeof driveCollectSubmissions.$inferSelect;
export type NewSubmission = Omit<typeof driveCollectSubmissions.$inferInsert, 'id' | 'tenantId'>;

const submissionRows = scoped(driveCollectSubmissions);

/**
 * Counts one file of `size` bytes unless the link is revoked or a cumulative limit of its current
 * policy would be passed: one conditional statement, so of N concurrent submissions against
 * maxFiles = k exactly k pass. Answers the new totals, or null when it was not counted.
 */
export async function countSubmission(
  tx: Db,
  linkId: number,
  size: number,
): Promise<{ collectFileCount: number; collectBytes: number } | null> {
  const l = driveShareLinks;
  const rows = await tx
    .update(l)
    .set({ collectFileCount: sql`${l.collectFileCount} + 1`, collectBytes: sql`${l.collectBytes} + ${size}` })
    .where(
      and(
        eq(l.id, linkId),
        eq(l.status, 'active'),
        sql`(${l.collectPolicy} ->> 'maxFiles' is null or ${l.collectFileCount} < (${l.collectPolicy} ->> 'maxFiles')::int)`,
        sql`(${l.collectPolicy} ->> 'maxTotalMb' is null or ${l.collectBytes} + ${size} <= (${l.collectPolicy} ->> 'maxTotalMb')::bigint * 1048576)`,
      ),
    )
    .returning({ collectFileCount: l.collectFileCount, collectBytes: l.collectBytes });
  return rows[0] ?? null;
}

export const insertSubmission = (tx: Db, scope: TenantScope, row: NewSubmission) =>
  submissionRows.insert(tx, scope, row);

/** A record with the live state of its file: `nodeLive` (not in the recycle bin), `nodeExists` (not purged). */
export type SubmissionWithNode = { submission: SubmissionRow; nodeExists: boolean; nodeDeleted: boolean };

/** A link's records, newest first, each joined to its node (gone once purged: the reference is no foreign key). */
export async function pageOfSubmissions(
  db: Db,
  scope: TenantScope,
  linkId: number,
  page: PageRequest,
): Promise<Page<SubmissionWithNode>> {
  const s = driveCollectSubmissions;
  const where = submissionRows.where(scope, eq(s.linkId, linkId));
  const [list, totals] = await Promise.all([
    db
      .select({
        submission: s,
        nodeExists: sql<boolean>`${driveNodes.id} is not null`,
        nodeDeleted: sql<boolean>`${driveNodes.deletedAt} is not null`,
      })
      .from(s)
      .leftJoin(driveNodes, eq(driveNodes.id, s.nodeId))
      .where(where)
      .orderBy(desc(s.createdAt), desc(s.id))
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(s).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: page.page, pageSize: page.pageSize };
}
