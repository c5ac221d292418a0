import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { userOf } from '../../../platform/auth/principal.ts';
import { route } from '../../../platform/http/route.ts';
import { PageOf } from '../../../platform/http/schemas.ts';
import type { DispatchLogService } from './dispatch-log-service.ts';
import type { OverridesService } from './overrides-service.ts';
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
export function policyRoutes(
  app: FastifyInstance,
  policies: {
    overrides: OverridesService;
    dispatchLog: DispatchLogService;
    /** the secret a scope's webhook receivers verify signatures with */
    webhookSecret: (tenantId: number | null) => string;
  },
) {
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
    handler: async (req) => policies.overrides.events(req.scope, req.query),
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
    handler: async (req) => policies.overrides.save(req.scope, req.body.items, userOf(req.scope)?.userId ?? null),
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
    handler: async (req) => policies.overrides.reset(req.scope, req.body.eventKey),
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
    handler: async (req) => policies.dispatchLog.list(req.scope, req.query),
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
    handler: async (req) => ({ secret: policies.webhookSecret(req.scope.tenantId), header: 'X-Atrium-Signature' }),
  });
}
