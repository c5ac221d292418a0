import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { ModuleEvents } from '../../platform/events/types.ts';
import { createApps } from './apps/index.ts';
import { appAuthResolver } from './oauth/app-auth.ts';
import { connectedAppsRoutes } from './oauth/connected-apps.ts';
import type { OAuthDeps, OAuthUser } from './oauth/deps.ts';
import { issuerOf } from './oauth/discovery.ts';
import { oauthJobs } from './oauth/jobs.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { signingKeys } from './oauth/signing-keys.ts';
import { deleteAppGrants, purgeExpired, tokenStore } from './oauth/tokens.ts';
import { openApiRoutes } from './open-api-routes.ts';
import { createScopeRegistry } from './scopes.ts';
import { createWebhooks, type WebhookDeps } from './webhooks/index.ts';

export { openPlatformEvents } from './events.ts';
export type { ScopeDef } from './scopes.ts';

export type OpenPlatformDeps = {
  /** identity's view of a user (OAuth subject) */
  user: (userId: number) => Promise<OAuthUser | null>;
} & WebhookDeps;

/**
 * The open platform (spec §1.1, §4.1, §5.7): applications (OAuth clients), the OAuth 2.1
 * authorization server, bearer access for applications (`auth: 'app'`), connected apps, and
 * open-platform webhooks.
 */
export function createOpenPlatformModule(ctx: AppContext, deps: OpenPlatformDeps, events: readonly ModuleEvents[]) {
  const scopes = createScopeRegistry();
  const webhooks = createWebhooks(
    ctx,
    deps,
    events.flatMap((m) => m.webhooks),
  );
  const apps = createApps(ctx, {
    scopes,
    // an application's grants and webhooks go with it, in the deleting transaction
    onDelete: async (tx, appId) => {
      await deleteAppGrants(tx, appId);
      await webhooks.deleteForApp(tx, appId);
    },
  });
  const oauth: OAuthDeps = {
    ctx,
    issuer: issuerOf(ctx),
    scopes,
    store: tokenStore(ctx.db, {
      accessSeconds: ctx.config.oauthAccessTokenTtlSeconds,
      refreshSeconds: ctx.config.oauthRefreshTokenTtlSeconds,
    }),
    keys: signingKeys(ctx),
    user: deps.user,
    clients: apps.clients,
  };
  ctx.jobs.register(oauthJobs, () => ({ purgeExpired: (now: Date) => purgeExpired(ctx.db, now), clock: ctx.clock }));

  return {
    scopes,
    /** for the kernel: resolves `auth: 'app'` bearer tokens */
    resolveAppAuth: appAuthResolver(ctx, deps.user),
    webhooks: webhooks.api,
    /** client records cached for client authentication; `changed(clientId)` after writing open_apps outside the apps service */
    clients: apps.clients,
    async register(app: FastifyInstance) {
      oauthRoutes(app, oauth);
      connectedAppsRoutes(app, oauth);
      openApiRoutes(app);
      await apps.register(app);
      webhooks.register(app);
    },
  };
}

export type OpenPlatformModule = ReturnType<typeof createOpenPlatformModule>;
