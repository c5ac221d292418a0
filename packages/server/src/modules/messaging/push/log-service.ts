import type { Scope } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { type PushSendLogQuery, pageLogs } from './log-repository.ts';

/** The push send history of the caller's tenant (one row per recipient and provider call). */
export function createPushLogService(db: Db) {
  return {
    list: (scope: Pick<Scope, 'tenantId'>, q: PushSendLogQuery) => pageLogs(db, scope, q),
  };
}

export type PushLogService = ReturnType<typeof createPushLogService>;
