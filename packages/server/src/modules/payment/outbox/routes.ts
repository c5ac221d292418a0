import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { BigIdParams, PageOf } from '../../../platform/http/schemas.ts';
import type { OutboxService } from './outbox-service.ts';
import { EventQuery, PaymentEventSchema } from './schemas.ts';

const tags = ['Payment'];
const feature = 'payment';

/** The event outbox for operators (spec §3.1, §4.5): list, read, redispatch a dead letter. */
export function outboxRoutes(app: FastifyInstance, outbox: OutboxService) {
  route(app, {
    method: 'GET',
    url: '/api/payment/ops/events',
    operation: 'payment.event.list',
    auth: 'user',
    feature,
    permission: 'payment:ops:manage',
    schema: {
      tags,
      summary: 'List payment events of the outbox (newest first)',
      querystring: EventQuery,
      response: PageOf(PaymentEventSchema),
    },
    handler: async (req) => outbox.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/ops/events/:id',
    operation: 'payment.event.get',
    auth: 'user',
    feature,
    permission: 'payment:ops:manage',
    schema: { tags, summary: 'Get a payment event', params: BigIdParams, response: PaymentEventSchema },
    handler: async (req) => outbox.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/ops/events/:id/redispatch',
    operation: 'payment.event.redispatch',
    auth: 'user',
    feature,
    permission: 'payment:ops:manage',
    schema: {
      tags,
      summary: 'Reset a dead-letter (failed) event to pending and deliver it again at once',
      params: BigIdParams,
      response: PaymentEventSchema,
    },
    handler: async (req) => outbox.redispatch(req.scope, req.params.id),
  });
}
