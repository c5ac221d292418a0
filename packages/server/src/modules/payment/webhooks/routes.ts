import type { FastifyInstance } from 'fastify';
import { guideLink } from '../../../platform/http/docs-guides.ts';
import { route } from '../../../platform/http/route.ts';
import { BigIdParams, IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import {
  OwnWebhookCreate,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WebhookUpdate,
} from '../../open-platform/index.ts';
import { PaymentWebhookDeliveryQuery, PaymentWebhookQuery } from './schemas.ts';
import type { PaymentWebhooks } from './webhooks-service.ts';

const tags = ['Payment'];
const feature = 'payment';
const base = '/api/payment/webhooks';
const eventsNote =
  'Only payment.* and refund.* events (payment.succeeded, payment.closed, payment.failed, refund.succeeded, refund.failed, or the two patterns); any other entry is refused with 400 naming `events`. The same subscriptions appear under /api/open-platform/webhooks.';

/** `/api/payment/webhooks`: the payment center's webhook subscriptions and their deliveries (spec §4.5). */
export function paymentWebhookRoutes(app: FastifyInstance, webhooks: PaymentWebhooks) {
  route(app, {
    method: 'GET',
    url: base,
    operation: 'payment.webhook.list',
    auth: 'user',
    feature,
    permission: 'payment:webhook:view',
    schema: {
      tags,
      summary: 'List the payment center’s webhook subscriptions',
      querystring: PaymentWebhookQuery,
      response: PageOf(WebhookSubscription),
    },
    handler: async (req) => webhooks.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: `${base}/:id`,
    operation: 'payment.webhook.get',
    auth: 'user',
    feature,
    permission: 'payment:webhook:view',
    schema: { tags, summary: 'Get a payment webhook subscription', params: IdParams, response: WebhookSubscription },
    handler: async (req) => webhooks.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: base,
    operation: 'payment.webhook.create',
    auth: 'user',
    feature,
    permission: 'payment:webhook:manage',
    status: 201,
    schema: {
      tags,
      summary: 'Subscribe a URL to payment and refund events; answers the signing secret once',
      description: `${eventsNote} Deliveries are signed as every open-platform webhook (${guideLink('webhooks.md')}).`,
      body: OwnWebhookCreate,
      response: WebhookSubscriptionWithSecret,
    },
    handler: async (req) => webhooks.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: `${base}/:id`,
    operation: 'payment.webhook.update',
    auth: 'user',
    feature,
    permission: 'payment:webhook:manage',
    schema: {
      tags,
      summary: 'Change a payment webhook subscription’s URL, events or description',
      description: eventsNote,
      params: IdParams,
      body: WebhookUpdate,
      response: WebhookSubscription,
    },
    handler: async (req) => webhooks.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: `${base}/:id`,
    operation: 'payment.webhook.delete',
    auth: 'user',
    feature,
    permission: 'payment:webhook:manage',
    schema: {
      tags,
      summary: 'Delete a payment webhook subscription with its deliveries',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await webhooks.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'GET',
    url: `${base}/deliveries`,
    operation: 'payment.webhook_delivery.list',
    auth: 'user',
    feature,
    permission: 'payment:webhook:view',
    schema: {
      tags,
      summary: 'List deliveries of payment and refund events to the payment center’s subscriptions, newest first',
      querystring: PaymentWebhookDeliveryQuery,
      response: PageOf(WebhookDelivery),
    },
    handler: async (req) => webhooks.deliveries(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: `${base}/deliveries/:id`,
    operation: 'payment.webhook_delivery.get',
    auth: 'user',
    feature,
    permission: 'payment:webhook:view',
    schema: {
      tags,
      summary: 'Get a payment webhook delivery with the body sent and every attempt',
      params: BigIdParams,
      response: WebhookDeliveryDetail,
    },
    handler: async (req) => webhooks.delivery(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: `${base}/deliveries/:id/redeliver`,
    operation: 'payment.webhook_delivery.redeliver',
    auth: 'user',
    feature,
    permission: 'payment:webhook:manage',
    status: 201,
    schema: {
      tags,
      summary: 'Send the same payment event again to the same subscription, now; answers the new delivery',
      description: 'Same event id, a new delivery id; retried like any delivery if it fails.',
      params: BigIdParams,
      response: WebhookDeliveryDetail,
    },
    handler: async (req) => webhooks.redeliver(req.scope, req.params.id),
  });
}
