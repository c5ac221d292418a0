import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { userOf } from '../../../platform/auth/principal.ts';
import type { AppContext } from '../../../platform/context.ts';
import { route } from '../../../platform/http/route.ts';
import { PageOf } from '../../../platform/http/schemas.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { webhookSigningSecret } from '../channels/webhook.ts';
import { listDispatches } from './dispatch-log.ts';
import { resetOverrides, saveOverrides } from './overrides-service.ts';
import { eventView, scopeOverrides } from './rules-view.ts';
import {
  DispatchQuery,
  DispatchView,
  EventsQuery,
  EventView,
  OverridesBody,
  ResetBody,
  SaveResult,
} from './schemas.ts';

const tags = ['Notifications'];

/** Administrators: the catalog with the scope's overrides, saving and resetting them, the dispatch log. */
export function policyRoutes(app: FastifyInstance, ctx: AppContext, catalog: Catalog) {
  route(app, {
    method: 'GET',
    url: '/api/notification-policies/events',
    operation: 'messaging.policy.events',
    auth: 'user',
    permission: 'system:notification-policy:view',
    schema: {
      tags,
      summary: 'The event catalog with the effective overrides of the caller’s scope',
      querystring: EventsQuery,
      response: Type.Array(EventView),
    },
    handler: async (req) => {
      const overrides = await scopeOverrides(ctx.db, req.scope.tenantId);
      return catalog
        .all()
        .filter((e) => (req.query.includeHidden ?? true) || !e.hidden)
        .filter((e) => !req.query.group || e.group === req.query.group)
        .map((e) => eventView(e, overrides));
    },
  });

  route(app, {
    method: 'PUT',
    url: '/api/notification-policies/overrides',
    operation: 'messaging.policy.save_overrides',
    auth: 'user',
    permission: 'system:notification-policy:edit',
    schema: {
      tags,
      summary: 'Save channel overrides of events for the caller’s scope (a value equal to the default is removed)',
      body: OverridesBody,
      response: SaveResult,
    },
    handler: async (req) =>
      saveOverrides(ctx.db, catalog, req.scope, req.body.items, userOf(req.scope)?.userId ?? null),
  });

  route(app, {
    method: 'POST',
    url: '/api/notification-policies/overrides/reset',
    operation: 'messaging.policy.reset_overrides',
    auth: 'user',
    permission: 'system:notification-policy:edit',
    schema: {
      tags,
      summary: 'Remove the scope’s overrides of one event (or of all events): the defaults apply again',
      body: ResetBody,
      response: Type.Object({ removed: Type.Integer() }),
    },
    handler: async (req) => resetOverrides(ctx.db, catalog, req.scope, req.body.eventKey),
  });

  route(app, {
    method: 'GET',
    url: '/api/notification-policies/dispatches',
    operation: 'messaging.dispatch.list',
    auth: 'user',
    permission: 'system:notification-dispatch:list',
    schema: {
      tags,
      summary: 'Dispatch log: one row per recipient × channel with its decision and reason code',
      querystring: DispatchQuery,
      response: PageOf(DispatchView),
    },
    handler: async (req) => listDispatches(ctx.db, req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/notification-policies/webhook-secret',
    operation: 'messaging.policy.webhook_secret',
    auth: 'user',
    permission: 'system:notification-policy:edit',
    schema: {
      tags,
      summary: 'The secret webhook receivers of this scope verify X-Atrium-Signature with (HMAC-SHA256)',
      response: Type.Object({ secret: Type.String(), header: Type.String() }),
    },
    handler: async (req) => ({ secret: webhookSigningSecret(ctx, req.scope.tenantId), header: 'X-Atrium-Signature' }),
  });
}
