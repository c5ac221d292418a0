import { and, desc, eq, or, type SQL } from 'drizzle-orm';
import type { Scope } from '../../platform/auth/principal.ts';
import type { Db } from '../../platform/db/client.ts';
import { type PageRequest, scoped } from '../../platform/db/scoped.ts';
import { contains } from '../../platform/db/sql.ts';
import { positions } from './tables.ts';

/** Queries of positions (job titles), tenant-scoped. */
type Status = 'active' | 'disabled';
export type Position = typeof positions.$inferSelect;
export type PositionQuery = PageRequest & { keyword?: string; status?: Status };

export const positionsTable = scoped(positions);

/** Positions of the scope's tenant, newest first. */
export function listPositions(db: Db, scope: Pick<Scope, 'tenantId'>, q: PositionQuery) {
  const conds: SQL[] = [];
  if (q.keyword) conds.push(or(contains(positions.code, q.keyword), contains(positions.name, q.keyword)) as SQL);
  if (q.status) conds.push(eq(positions.status, q.status));
  return positionsTable.page(db, scope, q, conds.length ? and(...conds) : undefined, desc(positions.id));
}
