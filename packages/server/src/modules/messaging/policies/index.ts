import type { AppContext } from '../../../platform/context.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { webhookSigningSecret } from '../channels/webhook.ts';
import type { MessagingArea } from '../deps.ts';
import { createDispatchLogService } from './dispatch-log-service.ts';
import { createOverridesService } from './overrides-service.ts';
import { policyRoutes } from './policy-routes.ts';
import { preferenceRoutes } from './preference-routes.ts';
import { createPreferencesService } from './preferences-service.ts';
import { unsubscribeRoutes } from './unsubscribe-routes.ts';
import { createUnsubscribeService } from './unsubscribe-service.ts';

/** Policies (catalog, overrides, dispatch log), personal preferences and the unsubscribe link. */
export function createPolicies(ctx: AppContext, catalog: Catalog): MessagingArea {
  const { db } = ctx;
  const preferences = createPreferencesService({ db, catalog });
  const overrides = createOverridesService({ db, catalog });
  const dispatchLog = createDispatchLogService({ db });
  const webhookSecret = (tenantId: number | null) => webhookSigningSecret(ctx, tenantId);
  const links = createUnsubscribeService({ secrets: ctx.secrets, catalog, preferences });
  return {
    register(app) {
      policyRoutes(app, { overrides, dispatchLog, webhookSecret });
      preferenceRoutes(app, preferences);
      unsubscribeRoutes(app, links);
    },
  };
}
