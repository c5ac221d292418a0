import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../platform/http/schemas.ts';
import type { OrdersService } from './orders-service.ts';
import type { RefundsService } from './refunds-service.ts';
import {
  ChannelCallFailed,
  Order,
  OrderApplied,
  OrderCreate,
  OrderQuery,
  OrderUnreachable,
  Refund,
  RefundApplied,
  RefundCreate,
  RefundQuery,
  RefundUnreachable,
  SandboxPayQuery,
} from './schemas.ts';

const callFailed = {
  502: {
    description:
      'payment.channel_call_failed: the channel could not be reached or answered something unusable; nothing changed',
    content: { 'application/json': ChannelCallFailed },
  },
};

const tags = ['Payment'];
const feature = 'payment';

/** Orders and refunds of the caller's tenant (issue 16 item 2). */
export function orderRoutes(app: FastifyInstance, orders: OrdersService, refunds: RefundsService) {
  route(app, {
    method: 'GET',
    url: '/api/payment/orders',
    operation: 'payment.order.list',
    auth: 'user',
    feature,
    permission: 'payment:order:view',
    schema: { tags, summary: 'List payment orders (newest first)', querystring: OrderQuery, response: PageOf(Order) },
    handler: async (req) => orders.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/orders/:id',
    operation: 'payment.order.get',
    auth: 'user',
    feature,
    permission: 'payment:order:view',
    schema: { tags, summary: 'Get a payment order', params: IdParams, response: Order },
    handler: async (req) => orders.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/orders',
    operation: 'payment.order.create',
    auth: 'user',
    feature,
    permission: 'payment:order:create',
    status: 201,
    schema: {
      tags,
      summary:
        'Create a payment order at its channel (idempotent on orderNo: same body, same order; another body, 409)',
      description:
        'The order is stored, then created at its channel. Pay details → 201 `paying` with `payPayload`. ' +
        'The call never reached the channel (the egress guard refused its host, DNS failed, the connection was refused) → ' +
        '502 `payment.channel_unreachable`: the message says which host failed and, for a refusal, the EGRESS_ALLOW_HOSTS entry that allows it; ' +
        '`order` is the stored order (status `unsent`, the same reason in `lastError`). Nothing exists at the channel, so the same POST again retries the creation ' +
        '(one of concurrent retries calls the channel; an expired one answers 409 payment.order_expired). ' +
        'Sent but no definite answer (a timeout, a 5xx, an unreadable answer) → 201 `unknown` with `lastError`: the channel may hold the order, ' +
        'so it is never created again; a query (or the query job) settles it. A refusal by the channel → 201 `failed`.',
      body: OrderCreate,
      response: Order,
    },
    responses: {
      502: {
        description:
          'payment.channel_unreachable: the creation never reached the channel; `order` is the stored unsent order (post it again to retry)',
        content: { 'application/json': OrderUnreachable },
      },
    },
    handler: async (req) => orders.create(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/orders/:id/sandbox/pay',
    operation: 'payment.order.sandbox_pay',
    auth: 'user',
    feature,
    permission: 'payment:order:create',
    schema: {
      tags,
      summary: 'Pay a sandbox order locally (applied by the same path as a verified channel callback)',
      description:
        'An expired order is refused (409 payment.order_expired). `lostNotice=true` pays at the sandbox channel but loses its notice, as a lost callback would: the order stays paying until a query (or the query job) applies the payment.',
      params: IdParams,
      querystring: SandboxPayQuery,
      response: OrderApplied,
    },
    handler: async (req) => orders.sandboxPay(req.scope, req.params.id, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/orders/:id/query',
    operation: 'payment.order.query',
    auth: 'user',
    feature,
    permission: 'payment:order:query',
    schema: {
      tags,
      summary: 'Query the order at its channel and apply the answer as a callback would',
      description:
        'An `unsent` order (its creation never reached the channel) is not queried: 409 payment.order_not_sent; post the order again to retry its creation.',
      params: IdParams,
      response: OrderApplied,
    },
    responses: callFailed,
    handler: async (req) => orders.query(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/orders/:id/close',
    operation: 'payment.order.close',
    auth: 'user',
    feature,
    permission: 'payment:order:create',
    schema: {
      tags,
      summary: 'Close an unpaid order at its channel and here (the channel is asked first: a paid order is not closed)',
      description:
        'paying or unknown → the channel is queried; an order it reports settled is applied as such (succeeded, closed, failed) and not closed over; one still open there is closed at the channel, then here with payment.closed. unsent (never reached the channel) → closed here only, without a call. Closed already → answered as it is (outcome duplicate). succeeded or failed → 409 payment.order_not_open. A channel that cannot be reached → 502 payment.channel_call_failed, nothing changed.',
      params: IdParams,
      response: OrderApplied,
    },
    responses: callFailed,
    handler: async (req) => orders.close(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/orders/:id/refunds',
    operation: 'payment.refund.create',
    auth: 'user',
    feature,
    permission: 'payment:refund:create',
    status: 201,
    schema: {
      tags,
      summary: 'Refund part or all of a succeeded order (never more than is still refundable)',
      description:
        'The amount is reserved, the refund stored, then sent to the channel. No definite answer → 201 `unknown` with `lastError` until a query says. ' +
        'The call never reached the channel → 502 `payment.channel_unreachable` naming the host (and the EGRESS_ALLOW_HOSTS entry for a refusal); ' +
        '`refund` is the stored refund, `failed` with the reason in `lastError`, its amount refundable again: post a new refund (another refundNo) to retry.',
      params: IdParams,
      body: RefundCreate,
      response: Refund,
    },
    responses: {
      502: {
        description:
          'payment.channel_unreachable: the refund never reached the channel; `refund` is the stored, failed refund',
        content: { 'application/json': RefundUnreachable },
      },
    },
    handler: async (req) => refunds.create(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/refunds',
    operation: 'payment.refund.list',
    auth: 'user',
    feature,
    permission: 'payment:order:view',
    schema: { tags, summary: 'List refunds (newest first)', querystring: RefundQuery, response: PageOf(Refund) },
    handler: async (req) => refunds.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/refunds/:id',
    operation: 'payment.refund.get',
    auth: 'user',
    feature,
    permission: 'payment:order:view',
    schema: { tags, summary: 'Get a refund', params: IdParams, response: Refund },
    handler: async (req) => refunds.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/refunds/:id/query',
    operation: 'payment.refund.query',
    auth: 'user',
    feature,
    permission: 'payment:order:query',
    schema: {
      tags,
      summary: 'Query the refund at its channel and apply the answer as a callback would',
      params: IdParams,
      response: RefundApplied,
    },
    responses: callFailed,
    handler: async (req) => refunds.query(req.scope, req.params.id),
  });
}
