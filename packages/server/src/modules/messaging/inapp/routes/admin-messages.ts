import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BigIdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { MessageService } from '../message-service.ts';
import { AdminMessageQuery, AdminReadAll, InAppMessage, MarkedCount, SendBody, SendResult } from '../schemas.ts';
import type { SendService } from '../send-service.ts';

const tags = ['InAppMessages'];

/** Administration of the tenant's in-app messages: every user's, and sending by hand. */
export function adminMessageRoutes(app: FastifyInstance, messages: MessageService, send: SendService) {
  const admin = messages.admin;

  route(app, {
    method: 'GET',
    url: '/api/in-app-messages/admin',
    operation: 'messaging.in_app_message.list',
    auth: 'user',
    permission: 'system:in-app-message:list',
    schema: {
      tags,
      summary: 'In-app messages of every user of the tenant, newest first',
      querystring: AdminMessageQuery,
      response: PageOf(InAppMessage),
    },
    handler: async (req) => admin.list(req.scope, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/send',
    operation: 'messaging.in_app_message.send',
    auth: 'user',
    permission: 'system:in-app-message:send',
    status: 201,
    schema: {
      tags,
      summary: 'Send an in-app message to users of the tenant',
      description:
        'Text from an active template of the tenant (templateId, with every variable it declares) or from title and content; `{{var}}` placeholders are filled from variables. A user id unknown in the tenant answers 400 naming it, and nothing is sent. The recipients get one live `inapp.message` event.',
      body: SendBody,
      response: SendResult,
    },
    handler: async (req) => send(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/admin/read-all',
    operation: 'messaging.in_app_message.admin_read_all',
    auth: 'user',
    permission: 'system:in-app-message:update',
    schema: {
      tags,
      summary: 'Mark read all messages of one user of the tenant, or of the whole tenant',
      body: AdminReadAll,
      response: MarkedCount,
    },
    handler: async (req) => admin.readAll(req.scope, req.body.userId),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/admin/:id/read',
    operation: 'messaging.in_app_message.admin_read',
    auth: 'user',
    permission: 'system:in-app-message:update',
    schema: {
      tags,
      summary: 'Mark any message of the tenant read (a repeat keeps the first readAt)',
      params: BigIdParams,
      response: InAppMessage,
    },
    handler: async (req) => admin.read(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/in-app-messages/admin/:id',
    operation: 'messaging.in_app_message.admin_delete',
    auth: 'user',
    permission: 'system:in-app-message:delete',
    schema: { tags, summary: 'Delete any message of the tenant', params: BigIdParams, response: Ok },
    handler: async (req) => {
      await admin.remove(req.scope, req.params.id);
    },
  });
}
