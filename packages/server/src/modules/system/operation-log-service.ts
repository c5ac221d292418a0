import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import {
  countBetween,
  countByDayQuery,
  logsBefore,
  type OperationLogFilter,
  type OperationLogRow,
  pageLogs,
  snapshotOf,
} from './operation-log-repository.ts';

/** Reading the operation log: the tenant's whole log, or a user's own records. */
export function createOperationLogService(ctx: AppContext) {
  return {
    list: (scope: Scope, q: PageRequest & OperationLogFilter) => pageLogs(ctx.db, scope, q),

    /**
     * For exports: the rows of the scope's tenant matching the same filters as the list, newest
     * first, page by page. The set is fixed when called (rows recorded later are not included),
     * and `total` is its size, so a caller can report progress.
     */
    async export(scope: Pick<Scope, 'tenantId'>, filter: OperationLogFilter, pageSize = 500) {
      const { total, maxId } = await snapshotOf(ctx.db, scope, filter);
      async function* pages(): AsyncGenerator<OperationLogRow[]> {
        if (total === 0) return;
        let before = maxId + 1;
        for (;;) {
          const rows = await logsBefore(ctx.db, scope, filter, before, pageSize);
          if (rows.length > 0) yield rows;
          const last = rows.at(-1);
          if (!last || rows.length < pageSize) return;
          before = last.id;
        }
      }
      return { total, pages: pages() };
    },

    mine(scope: Scope, q: PageRequest & Pick<OperationLogFilter, 'from' | 'to'>) {
      const user = userOf(scope);
      if (!user) throw httpErrors.unauthenticated();
      return pageLogs(ctx.db, scope, {
        page: q.page,
        pageSize: q.pageSize,
        from: q.from,
        to: q.to,
        userId: user.userId,
      });
    },
  };
}

export type OperationLogService = ReturnType<typeof createOperationLogService>;

/** For the dashboard: operations recorded in the scope's tenant since the start of the UTC day of `now`. */
export async function operationStats(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  now: Date,
): Promise<{ todayOperations: number }> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const dayEnd = new Date(dayStart.getTime() + 86_400_000);
  return { todayOperations: await countBetween(db, scope, dayStart, dayEnd) };
}

/** For the dashboard's trend: operations recorded in the scope's tenant in [from, to), per UTC day. */
export async function operationsByDay(
  db: Db,
  scope: Pick<Scope, 'tenantId'>,
  from: Date,
  to: Date,
): Promise<{ day: string; count: number }[]> {
  const rows = await countByDayQuery(db, scope, from, to);
  return rows.map((r) => ({ day: r.day, count: Number(r.n) }));
}
