import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { SystemTask } from '../../platform/jobs/types.ts';
import { createApps } from './apps/index.ts';
import { createOAuth, type FindOAuthUser } from './oauth/index.ts';
import { openApiRoutes } from './open-api-routes.ts';
import { createScopeRegistry } from './scopes.ts';
import { createWebhooks, type WebhookDeps } from './webhooks/index.ts';

export type { ScopeDef } from './scopes.ts';

export type OpenPlatformDeps = {
  /** identity's view of a user (OAuth subject) */
  user: FindOAuthUser;
} & WebhookDeps;

/**
 * The open platform (spec §1.1, §4.1, §5.7): applications (OAuth clients), the OAuth 2.1
 * authorization server, bearer access for applications (`auth: 'app'`), connected apps, and
 * open-platform webhooks.
 */
export function createOpenPlatformModule(ctx: AppContext, deps: OpenPlatformDeps) {
  const scopes = createScopeRegistry();
  const webhooks = createWebhooks(ctx, deps);
  const apps = createApps(ctx, {
    scopes,
    // an application's grants and webhooks go with it, in the deleting transaction
    onDelete: async (tx, appId) => {
      await oauth.tokens.deleteAppGrants(tx, appId);
      await webhooks.deleteForApp(tx, appId);
    },
  });
  const oauth = createOAuth(ctx, { scopes, clients: apps.clients, user: deps.user });
  const purge: SystemTask = {
    name: 'openPlatform.purgeExpiredTokens',
    description: 'Delete OAuth tokens and codes that expired more than a day ago',
    schedule: '17 3 * * *',
    handler: async () => oauth.tokens.purgeExpired(ctx.clock()),
  };
  ctx.jobs.registerSystemTask(purge);

  return {
    scopes,
    /** for the kernel: resolves `auth: 'app'` bearer tokens */
    resolveAppAuth: oauth.resolveAppAuth,
    webhooks: webhooks.api,
    /** client records cached for client authentication; `changed(clientId)` after writing open_apps outside the apps service */
    clients: apps.clients,
    async register(app: FastifyInstance) {
      oauth.register(app);
      openApiRoutes(app);
      await apps.register(app);
      webhooks.register(app);
    },
  };
}

export type OpenPlatformModule = ReturnType<typeof createOpenPlatformModule>;
