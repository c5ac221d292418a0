import type { AppContext } from '../../../platform/context.ts';
import type { ChannelRegistry } from '../channels/registry.ts';
import type { MessagingArea } from '../deps.ts';
import { policyRoutes } from './policy-routes.ts';
import { preferenceRoutes } from './preference-routes.ts';
import { unsubscribeRoutes } from './unsubscribe-routes.ts';

/** Policies (catalog, overrides, dispatch log), personal preferences and the unsubscribe link. */
export function createPolicies(ctx: AppContext, _deps: { registry: ChannelRegistry }): MessagingArea {
  return {
    register(app) {
      policyRoutes(app, ctx);
      preferenceRoutes(app, ctx);
      unsubscribeRoutes(app, ctx);
    },
  };
}
