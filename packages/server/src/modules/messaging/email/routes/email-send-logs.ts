import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BatchResult, BigBatchIds, BigIdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import { EmailSendLog, EmailSendLogQuery, EmailSendResult, EmailTestSend } from '../schemas.ts';
import type { EmailSendLogService } from '../send-log-service.ts';

const tags = ['Email'];

/** `/api/email-send-logs`: one row per attempted email of the caller's scope, and the test send. */
export function emailSendLogRoutes(app: FastifyInstance, logs: EmailSendLogService) {
  route(app, {
    method: 'GET',
    url: '/api/email-send-logs',
    operation: 'messaging.email_send_log.list',
    auth: 'user',
    permission: 'system:email-send-log:list',
    schema: {
      tags,
      summary: 'List email send logs, newest first',
      querystring: EmailSendLogQuery,
      response: PageOf(EmailSendLog),
    },
    handler: async (req) => logs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/email-send-logs/:id',
    operation: 'messaging.email_send_log.get',
    auth: 'user',
    permission: 'system:email-send-log:list',
    schema: { tags, summary: 'Get an email send log', params: BigIdParams, response: EmailSendLog },
    handler: async (req) => logs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/email-send-logs/test-send',
    operation: 'messaging.email_send_log.test_send',
    auth: 'user',
    permission: 'system:email-config:update',
    schema: {
      tags,
      summary: 'Render a template (or the given subject and content) and send it with the effective configuration',
      description:
        'Uses this scope’s configuration, else the platform’s; 409 `messaging.email_not_configured` when none is enabled. Answers the SMTP outcome and writes a send log.',
      body: EmailTestSend,
      response: EmailSendResult,
    },
    handler: async (req) => logs.testSend(req.scope, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/email-send-logs/batch',
    operation: 'messaging.email_send_log.batch_delete',
    auth: 'user',
    permission: 'system:email-send-log:delete',
    errors: [404], // an id of the batch outside the tenant
    schema: {
      tags,
      summary: 'Delete several email send logs, all or nothing',
      body: BigBatchIds,
      response: BatchResult,
    },
    handler: async (req) => logs.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/email-send-logs/:id',
    operation: 'messaging.email_send_log.delete',
    auth: 'user',
    permission: 'system:email-send-log:delete',
    schema: { tags, summary: 'Delete an email send log', params: BigIdParams, response: Ok },
    handler: async (req) => {
      await logs.remove(req.scope, req.params.id);
    },
  });
}
