import { type Scope, userOf } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import type { PageRequest } from '../../platform/db/scoped.ts';
import { httpErrors } from '../../platform/http/errors.ts';
import { countBetween, type OperationLogFilter, pageLogs } from './operation-log-repository.ts';

/** Reading the operation log: the tenant's whole log, or a user's own records. */
export function createOperationLogService(ctx: AppContext) {
  return {
    list: (scope: Scope, q: PageRequest & OperationLogFilter) => pageLogs(ctx.db, scope, q),

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
