import type { AppPrincipal } from '../../../platform/auth/principal.ts';
import type { OAuthDeps } from './deps.ts';
import { findLiveToken } from './token-repository.ts';

/**
 * The kernel's resolver for `auth: 'app'` routes: a live access token of an active application
 * becomes an AppPrincipal acting in the token's tenant. Indexed lookups, no cache, so a
 * revocation or a disabled user takes effect on the next request on every instance.
 */
export function appAuthResolver({ db, clock, user }: Pick<OAuthDeps, 'db' | 'clock' | 'user'>) {
  return async (token: string): Promise<AppPrincipal | null> => {
    const live = await findLiveToken(db, token, clock(), 'access');
    if (!live) return null;
    const t = live.token;
    // a token speaks for its user only while the user (and their tenant) is active
    if (t.userId !== null && !(await user(t.userId))?.active) return null;
    return {
      kind: 'app',
      appId: t.appId,
      clientId: live.clientId,
      tenantId: t.tenantId,
      userId: t.userId,
      scopes: new Set(t.scopes),
    };
  };
}
