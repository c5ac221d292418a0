import { and, asc, count, countDistinct, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../../platform/db/client.ts';
import { driveNodes, driveShareAccessLogs, driveShareLinks } from '../tables.ts';

/** The per-link totals of a period for the link owners' digest (all tenants: a system task reads them). */
const l = driveShareAccessLogs;
const sl = driveShareLinks;
const ofEvent = (event: string) => sql<number>`count(*) filter (where ${l.event} = ${event})`.mapWith(Number);

export type LinkActivity = {
  tenantId: number | null;
  linkId: number;
  createdBy: number;
  title: string;
  nodeName: string | null;
  opens: number;
  addresses: number;
  downloads: number;
  wrongPasswords: number;
  uploads: number;
  events: number;
};

/** Every link used in [from, to), with its counts, ordered by tenant, creator and link. */
export function linkActivityBetween(db: Db, from: Date, to: Date): Promise<LinkActivity[]> {
  return (
    db
      .select({
        tenantId: l.tenantId,
        linkId: l.linkId,
        createdBy: sl.createdBy,
        title: sl.title,
        nodeName: driveNodes.name,
        opens: ofEvent('access'),
        addresses: countDistinct(l.ip),
        downloads: ofEvent('download'),
        wrongPasswords: ofEvent('wrong_password'),
        uploads: ofEvent('upload'),
        events: count(),
      })
      .from(l)
      .innerJoin(sl, eq(sl.id, l.linkId))
      .leftJoin(driveNodes, eq(driveNodes.id, sl.nodeId))
      // the bounds keep the read to the period's partition
      .where(and(gte(l.createdAt, from), lt(l.createdAt, to)))
      .groupBy(l.tenantId, l.linkId, sl.createdBy, sl.title, driveNodes.name)
      .orderBy(asc(l.tenantId), asc(sl.createdBy), asc(l.linkId))
  );
}
