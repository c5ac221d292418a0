import type { FastifyInstance } from 'fastify';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { PageOf } from '../../../platform/http/schemas.ts';
import type { NotifyService } from './notify-service.ts';
import {
  AckText,
  ackResponses,
  BigIdParams,
  NOTIFY_BODY_LIMIT,
  NotifyLog,
  NotifyLogDetail,
  NotifyLogQuery,
  NotifyParams,
} from './schemas.ts';

const tags = ['Payment'];
const feature = 'payment';

/**
 * POST /api/public/payment/notify/{channel} (spec §3.2, §4.5). Registered in a scope of its own
 * whose only body parsers hand JSON and form bodies over as the raw Buffer, untouched: every
 * channel signs the bytes it sent (channel_b's may be GBK), so nothing is parsed before the
 * adapter verifies them, and a malformed body is a failed verification (401 and a log row), not a
 * 400 in the service's envelope. Refusals before the handler (413, 415, the licence) stay in the
 * envelope: the channel only reads that it was not a success and resends.
 */
export async function notifyRoutes(app: FastifyInstance, notify: NotifyService) {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      ['application/json', 'application/x-www-form-urlencoded'],
      { parseAs: 'buffer' },
      (_req, body, done) => done(null, body),
    );
    route(scope, {
      method: 'POST',
      url: '/api/public/payment/notify/:channel',
      operation: 'payment.notify.receive',
      auth: 'public',
      feature,
      consumes: ['application/json', 'application/x-www-form-urlencoded'],
      bodyLimit: NOTIFY_BODY_LIMIT,
      reply: replyFormats.body('text/plain'),
      responses: ackResponses,
      schema: {
        tags,
        summary: 'A payment channel’s callback (verified by signature; answered in the channel’s own acknowledgement)',
        description:
          'No credentials: the channel’s signature is verified against every enabled configuration of the channel. Success: 204 (channel_a), 200 `success` (channel_b), 200 `ok` (channel_c); channel_b also answers a processing failure with 200 `fail`.',
        params: NotifyParams,
        response: AckText,
      },
      handler: async (req, reply) => {
        const ack = await notify.receive(req.params.channel, {
          rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
          headers: req.headers,
          ip: req.ip,
        });
        reply.code(ack.status);
        if (ack.contentType) reply.type(ack.contentType);
        return reply.send(ack.status === 204 ? undefined : ack.body);
      },
    });
  });
}

/** The callback log for administrators of the tenant; rows no configuration verified (tenant null) at platform scope. */
export function notifyLogRoutes(app: FastifyInstance, notify: NotifyService) {
  route(app, {
    method: 'GET',
    url: '/api/payment/notify-logs',
    operation: 'payment.notify_log.list',
    auth: 'user',
    feature,
    permission: 'payment:notify-log:view',
    schema: {
      tags,
      summary: 'List channel callbacks received (newest first)',
      querystring: NotifyLogQuery,
      response: PageOf(NotifyLog),
    },
    handler: async (req) => {
      const { signatureValid, from, to, ...rest } = req.query;
      return notify.list(req.scope, {
        ...rest,
        ...(signatureValid ? { signatureValid: signatureValid === 'true' } : {}),
        ...(from ? { from: new Date(from) } : {}),
        ...(to ? { to: new Date(to) } : {}),
      });
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/notify-logs/:id',
    operation: 'payment.notify_log.get',
    auth: 'user',
    feature,
    permission: 'payment:notify-log:view',
    schema: {
      tags,
      summary: 'Get one channel callback with its raw body and header digest',
      params: BigIdParams,
      response: NotifyLogDetail,
    },
    handler: async (req) => notify.get(req.scope, req.params.id),
  });
}
