import type { Scope } from '../../platform/auth/principal.ts';
import type { AppContext } from '../../platform/context.ts';
import { identityErrors } from './errors.ts';
import * as repo from './online-sessions-repository.ts';
import type { Sessions } from './sessions.ts';

/**
 * Live sign-in sessions and the forced logout of one. Revocation goes through
 * `sessions.revoke`, which also drops the cached principal and tells every instance.
 */
export function createOnlineSessionsService({
  db,
  clock,
  sessions,
}: Pick<AppContext, 'db' | 'clock'> & { sessions: Sessions }) {
  return {
    list: (scope: Pick<Scope, 'tenantId'>, q: repo.SessionQuery) => repo.listLiveSessions(db, scope, q, clock()),

    /** Ends a live session of the caller's tenant; any other id (or an already ended session) is a 404. */
    async forceLogout(scope: Scope, id: number): Promise<void> {
      if (!(await repo.isLiveSessionOf(db, scope, id, clock()))) throw identityErrors.notFound('session');
      const revoked = await sessions.revoke({ sessionId: id }, 'forced_logout');
      // Ended meanwhile (logout, expiry sweep): same answer as an unknown id.
      if (revoked.length === 0) throw identityErrors.notFound('session');
    },
  };
}

export type OnlineSessionsService = ReturnType<typeof createOnlineSessionsService>;
