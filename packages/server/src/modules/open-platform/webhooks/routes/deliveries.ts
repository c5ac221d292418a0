import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BigIdParams, PageOf } from '../../../../platform/http/schemas.ts';
import type { DeliveryService } from '../deliveries-service.ts';
import { Delivery, DeliveryDetail, DeliveryQuery } from '../schemas.ts';

const tags = ['OpenWebhooks'];
const base = '/api/open-platform/webhook-deliveries';

/** `/api/open-platform/webhook-deliveries`: the delivery log of the caller's tenant, and redelivery. */
export function deliveryRoutes(app: FastifyInstance, deliveries: DeliveryService) {
  route(app, {
    method: 'GET',
    url: base,
    operation: 'open_platform.webhook_delivery.list',
    auth: 'user',
    permission: 'open:webhook:list',
    schema: {
      tags,
      summary: 'List webhook deliveries, newest first',
      querystring: DeliveryQuery,
      response: PageOf(Delivery),
    },
    handler: async (req) => deliveries.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: `${base}/:id`,
    operation: 'open_platform.webhook_delivery.get',
    auth: 'user',
    permission: 'open:webhook:list',
    schema: {
      tags,
      summary: 'Get a delivery with the body sent and every attempt',
      params: BigIdParams,
      response: DeliveryDetail,
    },
    handler: async (req) => deliveries.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: `${base}/:id/redeliver`,
    operation: 'open_platform.webhook_delivery.redeliver',
    auth: 'user',
    permission: 'open:webhook:redeliver',
    status: 201,
    schema: {
      tags,
      summary: 'Send the same event again to the same subscription, now; answers the new delivery',
      description:
        'The new delivery has its own id (X-Atrium-Delivery) and the same event id (X-Atrium-Event-Id, body id), signed with the current secret. It is retried like any delivery if it fails.',
      params: BigIdParams,
      response: DeliveryDetail,
    },
    handler: async (req) => deliveries.redeliver(req.scope, req.params.id),
  });
}
