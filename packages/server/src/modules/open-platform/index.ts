import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { ModuleEvents } from '../../platform/events/types.ts';
import { createApps } from './apps/index.ts';
import { createOAuth, type FindOAuthUser, type TenantCodeOf } from './oauth/index.ts';

export type { OAuthUser } from './oauth/deps.ts';

import { oauthJobs } from './oauth/jobs.ts';
import { openApiRoutes } from './open-api-routes.ts';
import { createScopeRegistry } from './scopes.ts';
import { createWebhooks, type WebhookDeps } from './webhooks/index.ts';

export { openPlatformEvents } from './events.ts';
export type { ScopeDef } from './scopes.ts';
export type { ScopedWebhookView } from './webhooks/index.ts';
/** the wire shapes a module's own webhook view answers with (payment/webhooks) */
export {
  Delivery as WebhookDelivery,
  DeliveryDetail as WebhookDeliveryDetail,
  OwnSubscriptionCreate as OwnWebhookCreate,
  Subscription as WebhookSubscription,
  SubscriptionUpdate as WebhookUpdate,
  SubscriptionWithSecret as WebhookSubscriptionWithSecret,
} from './webhooks/schemas.ts';

export type OpenPlatformDeps = {
  /** identity's view of a user (OAuth subject) */
  user: FindOAuthUser;
  /** identity's tenant code, for the consent page's sign-in */
  tenantCode: TenantCodeOf;
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
      await oauth.tokens.deleteAppGrants(tx, appId);
      await webhooks.deleteForApp(tx, appId);
    },
  });
  const oauth = createOAuth(ctx, { scopes, clients: apps.clients, user: deps.user, tenantCode: deps.tenantCode });
  ctx.jobs.register(oauthJobs, () => ({ purgeExpired: oauth.tokens.purgeExpired, clock: ctx.clock }));

  return {
    scopes,
    /** the API description's OAuth2 scheme: the scopes and the absolute endpoints of the discovery metadata */
    oauthScheme() {
      const m = oauth.metadata();
      return { scopes: scopes.descriptions(), authorizationUrl: m.authorization_endpoint, tokenUrl: m.token_endpoint };
    },
    /** for the kernel: resolves `auth: 'app'` bearer tokens */
    resolveAppAuth: oauth.resolveAppAuth,
    webhooks: webhooks.api,
    /** the payment center's view of webhooks (spec §4.5): its own subscriptions, its events only */
    webhookView: webhooks.scopedView,
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
