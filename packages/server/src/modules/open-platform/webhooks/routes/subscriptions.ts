import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { WebhookSecretRotate } from '../../../../platform/egress/webhook-secrets.ts';
import { guideLink } from '../../../../platform/http/docs-guides.ts';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { DeliveryService } from '../deliveries-service.ts';
import type { WebhookEventRegistry } from '../events.ts';
import {
  DeliveryDetail,
  Subscription,
  SubscriptionCreate,
  SubscriptionQuery,
  SubscriptionStatusBody,
  SubscriptionUpdate,
  SubscriptionWithSecret,
  WebhookEvent,
} from '../schemas.ts';
import type { SubscriptionService } from '../subscriptions-service.ts';

const tags = ['OpenWebhooks'];
const base = '/api/open-platform/webhooks';

/** `/api/open-platform/webhooks`: subscriptions of the caller's tenant's applications (spec §4.5, §5.7). */
export function subscriptionRoutes(
  app: FastifyInstance,
  deps: { subs: SubscriptionService; deliveries: DeliveryService; events: WebhookEventRegistry },
) {
  const { subs, deliveries, events } = deps;

  route(app, {
    method: 'GET',
    url: '/api/open-platform/webhook-events',
    operation: 'open_platform.webhook_event.list',
    auth: 'user',
    permission: 'open:webhook:list',
    schema: {
      tags,
      summary: 'The event catalog: every event type a subscription can name',
      response: Type.Array(WebhookEvent),
    },
    handler: async () => events.all(),
  });

  route(app, {
    method: 'GET',
    url: base,
    operation: 'open_platform.webhook.list',
    auth: 'user',
    permission: 'open:webhook:list',
    schema: {
      tags,
      summary: 'List webhook subscriptions',
      querystring: SubscriptionQuery,
      response: PageOf(Subscription),
    },
    handler: async (req) => subs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: `${base}/:id`,
    operation: 'open_platform.webhook.get',
    auth: 'user',
    permission: 'open:webhook:list',
    schema: { tags, summary: 'Get a webhook subscription', params: IdParams, response: Subscription },
    handler: async (req) => subs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: base,
    operation: 'open_platform.webhook.create',
    auth: 'user',
    permission: 'open:webhook:create',
    status: 201,
    schema: {
      tags,
      summary: 'Subscribe an application’s URL to events; answers the signing secret once',
      description: `Deliveries are POSTed as JSON and signed with the secret (header X-Atrium-Signature, see ${guideLink('webhooks.md')}). Store the secret now: it is never shown again (rotate it to get a new one).`,
      body: SubscriptionCreate,
      response: SubscriptionWithSecret,
    },
    handler: async (req) => subs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: `${base}/:id`,
    operation: 'open_platform.webhook.update',
    auth: 'user',
    permission: 'open:webhook:update',
    schema: {
      tags,
      summary: 'Change a subscription’s URL, events or description (pending retries go to the new URL)',
      params: IdParams,
      body: SubscriptionUpdate,
      response: Subscription,
    },
    handler: async (req) => subs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: `${base}/:id`,
    operation: 'open_platform.webhook.delete',
    auth: 'user',
    permission: 'open:webhook:delete',
    schema: { tags, summary: 'Delete a subscription with its delivery log', params: IdParams, response: Ok },
    handler: async (req) => {
      await subs.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'PUT',
    url: `${base}/:id/status`,
    operation: 'open_platform.webhook.set_status',
    auth: 'user',
    permission: 'open:webhook:update',
    schema: {
      tags,
      summary: 'Enable or disable a subscription (enabling forgets its failure streak)',
      description:
        'A disabled subscription receives no new events and its pending retries wait; enabling resumes them.',
      params: IdParams,
      body: SubscriptionStatusBody,
      response: Subscription,
    },
    handler: async (req) => subs.setStatus(req.scope, req.params.id, req.body.status),
  });

  route(app, {
    method: 'POST',
    url: `${base}/:id/secret`,
    operation: 'open_platform.webhook.rotate_secret',
    auth: 'user',
    permission: 'open:webhook:update',
    schema: {
      tags,
      summary: 'Rotate the signing secret; answers the new one once',
      description:
        'During the grace period (graceSeconds, default 24 hours) every delivery carries two v1 signatures, one per secret, so receivers can switch without missing a delivery. Send `{}` for the defaults.',
      params: IdParams,
      body: WebhookSecretRotate,
      response: SubscriptionWithSecret,
    },
    handler: async (req) => subs.rotateSecret(req.scope, req.params.id, req.body.graceSeconds),
  });

  route(app, {
    method: 'POST',
    url: `${base}/:id/test`,
    operation: 'open_platform.webhook.test',
    auth: 'user',
    permission: 'open:webhook:update',
    status: 201,
    schema: {
      tags,
      summary: 'Send a webhook.test event now and answer the delivery with its outcome',
      description:
        'A receiver’s refusal or an unreachable URL is answered as a delivery with status pending (a retry is scheduled) and the attempt’s error.',
      params: IdParams,
      response: DeliveryDetail,
    },
    handler: async (req) => deliveries.sendTest(req.scope, req.params.id),
  });
}
