import type { AppContext } from '../../../platform/context.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { MessagingArea } from '../deps.ts';
import { policyRoutes } from './policy-routes.ts';
import { preferenceRoutes } from './preference-routes.ts';
import { unsubscribeRoutes } from './unsubscribe-routes.ts';

/** Policies (catalog, overrides, dispatch log), personal preferences and the unsubscribe link. */
export function createPolicies(ctx: AppContext, catalog: Catalog): MessagingArea {
  return {
    register(app) {
      policyRoutes(app, ctx, catalog);
      preferenceRoutes(app, ctx, catalog);
      unsubscribeRoutes(app, ctx, catalog);
    },
  };
}
