import { type Scope, userOf } from '../../../platform/auth/principal.ts';
import type { Db } from '../../../platform/db/client.ts';
import { httpErrors } from '../../../platform/http/errors.ts';
import { closeUserAppCodes } from './code-repository.ts';
import { type ConsentWithApp, deleteUserAppConsent, listUserConsents } from './consent-repository.ts';
import { revokeUserAppTokens } from './token-repository.ts';

function signedIn(scope: Scope) {
  const user = userOf(scope);
  if (!user) throw httpErrors.unauthenticated();
  return user;
}

export function toConnectedAppView({ consent, app, last }: ConsentWithApp) {
  return {
    appId: app.id,
    clientId: app.clientId,
    name: app.name,
    description: app.description,
    homepageUrl: app.homepageUrl,
    logoUrl: app.logoUrl,
    scopes: consent.scopes,
    grantedAt: consent.createdAt.toISOString(),
    lastTokenAt: last ? new Date(last).toISOString() : null,
  };
}

/** The signed-in user's own view of the applications they authorized, and the way to cut one off. */
export function createConnectedAppsService(deps: { db: Db; clock: () => Date }) {
  const { db, clock } = deps;
  return {
    async list(scope: Scope) {
      const user = signedIn(scope);
      const rows = await listUserConsents(db, user.userId, clock());
      return rows.map(toConnectedAppView);
    },

    /** Ends what the user granted the application: the consent, every token and every open code. */
    async revoke(scope: Scope, appId: number): Promise<void> {
      const user = signedIn(scope);
      const now = clock();
      const ended = await db.transaction(async (tx) => {
        const consent = await deleteUserAppConsent(tx, user.userId, appId);
        const tokens = await revokeUserAppTokens(tx, user.userId, appId, now);
        await closeUserAppCodes(tx, user.userId, appId, now);
        return consent || tokens > 0;
      });
      if (!ended) throw httpErrors.notFound('open_platform.connected_app_not_found', 'Connected application');
    },
  };
}

export type ConnectedAppsService = ReturnType<typeof createConnectedAppsService>;
