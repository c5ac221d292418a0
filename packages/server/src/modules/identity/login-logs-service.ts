import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import * as repo from './login-logs-repository.ts';

/** What the API shows of a sign-in attempt. */
export function toLoginLogView(l: repo.LoginLogRow) {
  return {
    id: l.id,
    userId: l.userId,
    username: l.username,
    ip: l.ip,
    userAgent: l.userAgent,
    success: l.success,
    reason: l.reason,
    createdAt: l.createdAt,
  };
}

/** Reading the sign-in history (sign-in writes it, on every attempt). */
export function createLoginLogsService({ db }: Pick<AppContext, 'db'>) {
  return {
    async list(scope: Pick<Scope, 'tenantId'>, q: repo.LoginLogQuery) {
      const page = await repo.listLoginLogs(db, scope, q);
      return { ...page, list: page.list.map(toLoginLogView) };
    },
  };
}

export type LoginLogsService = ReturnType<typeof createLoginLogsService>;
