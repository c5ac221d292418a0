import type { AppPrincipal } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import type { OAuthUser } from './deps.ts';
import { findLiveToken } from './tokens.ts';

/**
 * The kernel's resolver for `auth: 'app'` routes: a live access token of an active application
 * becomes an AppPrincipal acting in the token's tenant. Indexed lookups, no cache, so a
 * revocation or a disabled user takes effect on the next request on every instance.
 */
export function appAuthResolver(ctx: AppContext, user: (userId: number) => Promise<OAuthUser | null>) {
  return async (token: string): Promise<AppPrincipal | null> => {
    const live = await findLiveToken(ctx.db, token, ctx.clock(), 'access');
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
