import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BigIdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { SmsLogService } from '../log-service.ts';
import { SmsSendLog, SmsSendLogQuery, SmsTestSend } from '../schemas.ts';

const tags = ['Sms'];

/** `/api/sms-send-logs`: one row per attempted SMS of the caller's tenant, and test sends (spec §4.4). */
export function smsLogRoutes(app: FastifyInstance, logs: SmsLogService) {
  route(app, {
    method: 'GET',
    url: '/api/sms-send-logs',
    operation: 'messaging.sms_send_log.list',
    auth: 'user',
    permission: 'system:sms-send-log:list',
    schema: {
      tags,
      summary: 'List SMS send logs, newest first',
      querystring: SmsSendLogQuery,
      response: PageOf(SmsSendLog),
    },
    handler: async (req) => logs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/sms-send-logs/:id',
    operation: 'messaging.sms_send_log.get',
    auth: 'user',
    permission: 'system:sms-send-log:list',
    schema: { tags, summary: 'Get an SMS send log', params: BigIdParams, response: SmsSendLog },
    handler: async (req) => logs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/sms-send-logs/:id',
    operation: 'messaging.sms_send_log.delete',
    auth: 'user',
    permission: 'system:sms-send-log:delete',
    schema: { tags, summary: 'Delete an SMS send log', params: BigIdParams, response: Ok },
    handler: async (req) => {
      await logs.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/sms-send-logs/test-send',
    operation: 'messaging.sms_send_log.test_send',
    auth: 'user',
    permission: 'system:sms-send-log:test',
    schema: {
      tags,
      summary: 'Send one SMS through a template of my tenant and answer its send log',
      description:
        'The provider’s refusal is answered as a log row with status `failed` and the provider’s error code and text.',
      body: SmsTestSend,
      response: SmsSendLog,
    },
    handler: async (req) => logs.testSend(req.scope, req.body),
  });
}
