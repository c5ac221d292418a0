import { and, count, desc, eq, gte, inArray, lt, lte, max, type SQL } from 'drizzle-orm';
import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type Page, type PageRequest, scoped, tenantFilter } from '../../../platform/db/scoped.ts';
import { driveNodes, driveShareAccessLogs, driveShareLinks, type ShareAccessEvent } from '../tables.ts';

/** Reads of drive_share_access_logs (written by public/link-access.ts): per link or per space, in a bounded time range. */
type TenantScope = Pick<Scope, 'tenantId'>;
const l = driveShareAccessLogs;
const links = scoped(driveShareLinks);

/** One link, or every link of a space; `from`/`to` bound created_at so only those months' partitions are read. */
export type AccessLogFilter = ({ linkId: number } | { spaceId: number }) & {
  event?: ShareAccessEvent;
  from: Date;
  to: Date;
};

const columns = {
  id: l.id,
  linkId: l.linkId,
  nodeId: l.nodeId,
  nodeName: driveNodes.name,
  event: l.event,
  ip: l.ip,
  userAgent: l.userAgent,
  detail: l.detail,
  createdAt: l.createdAt,
};
export type AccessLogRow = {
  id: number;
  linkId: number;
  nodeId: number | null;
  nodeName: string | null;
  event: ShareAccessEvent;
  ip: string | null;
  userAgent: string | null;
  detail: Record<string, unknown>;
  createdAt: Date;
};

function whereOf(db: Db, scope: TenantScope, f: AccessLogFilter): SQL {
  const target =
    'linkId' in f
      ? eq(l.linkId, f.linkId)
      : inArray(
          l.linkId,
          db
            .select({ id: driveShareLinks.id })
            .from(driveShareLinks)
            .where(links.where(scope, eq(driveShareLinks.spaceId, f.spaceId))),
        );
  return and(
    tenantFilter(l, scope),
    target,
    gte(l.createdAt, f.from),
    lt(l.createdAt, f.to),
    f.event ? eq(l.event, f.event) : undefined,
  ) as SQL;
}

const select = (db: Db) => db.select(columns).from(l).leftJoin(driveNodes, eq(driveNodes.id, l.nodeId));

/** A page of the records, newest first (the sequence orders rows across partitions). */
export async function pageOfAccessLogs(
  db: Db,
  scope: TenantScope,
  f: AccessLogFilter,
  page: PageRequest,
): Promise<Page<AccessLogRow>> {
  const where = whereOf(db, scope, f);
  const [list, totals] = await Promise.all([
    select(db)
      .where(where)
      .orderBy(desc(l.id))
      .limit(page.pageSize)
      .offset((page.page - 1) * page.pageSize),
    db.select({ n: count() }).from(l).where(where),
  ]);
  return { list, total: Number(totals[0]?.n ?? 0), page: page.page, pageSize: page.pageSize };
}

/** How many records match and the highest id among them: the fixed bound of an export. */
export async function snapshotOfAccessLogs(db: Db, scope: TenantScope, f: AccessLogFilter) {
  const [row] = await db
    .select({ n: count(), maxId: max(l.id) })
    .from(l)
    .where(whereOf(db, scope, f));
  return { total: Number(row?.n ?? 0), maxId: Number(row?.maxId ?? 0) };
}

/** Matching records with `id <= atMost`, newest first (keyset: pages stay stable while rows arrive). */
export function accessLogsUpTo(db: Db, scope: TenantScope, f: AccessLogFilter, atMost: number, limit: number) {
  return select(db)
    .where(and(whereOf(db, scope, f), lte(l.id, atMost)) as SQL)
    .orderBy(desc(l.id))
    .limit(limit);
}
