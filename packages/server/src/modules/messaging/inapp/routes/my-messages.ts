import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BatchResult, BigBatchIds, BigIdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { MessageService } from '../message-service.ts';
import { InAppMessage, MarkedCount, MyMessageQuery, UnreadCount } from '../schemas.ts';

const tags = ['InAppMessages'];

/** The signed-in user's own messages (no permission needed; other users' messages are 404). */
export function myMessageRoutes(app: FastifyInstance, messages: MessageService) {
  const mine = messages.mine;

  route(app, {
    method: 'GET',
    url: '/api/in-app-messages',
    operation: 'messaging.in_app_message.list_mine',
    auth: 'user',
    schema: {
      tags,
      summary: 'My in-app messages, newest first',
      querystring: MyMessageQuery,
      response: PageOf(InAppMessage),
    },
    handler: async (req) => mine.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/in-app-messages/unread-count',
    operation: 'messaging.in_app_message.unread_count',
    auth: 'user',
    schema: { tags, summary: 'How many of my in-app messages are unread', response: UnreadCount },
    handler: async (req) => mine.unreadCount(req.scope),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/read-all',
    operation: 'messaging.in_app_message.read_all_mine',
    auth: 'user',
    schema: { tags, summary: 'Mark all my in-app messages read', response: MarkedCount },
    handler: async (req) => mine.readAll(req.scope),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/batch-read',
    operation: 'messaging.in_app_message.batch_read',
    auth: 'user',
    errors: [404], // an id of the batch not among my messages
    schema: {
      tags,
      summary: 'Mark several of my in-app messages read, all or nothing',
      description:
        'Messages read already keep their readAt. An id that is not one of my messages answers 404 naming it.',
      body: BigBatchIds,
      response: BatchResult,
    },
    handler: async (req) => mine.readMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/in-app-messages/batch',
    operation: 'messaging.in_app_message.batch_delete',
    auth: 'user',
    errors: [404], // an id of the batch not among my messages
    schema: {
      tags,
      summary: 'Delete several of my in-app messages, all or nothing',
      body: BigBatchIds,
      response: BatchResult,
    },
    handler: async (req) => mine.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'GET',
    url: '/api/in-app-messages/:id',
    operation: 'messaging.in_app_message.get_mine',
    auth: 'user',
    schema: { tags, summary: 'One of my in-app messages', params: BigIdParams, response: InAppMessage },
    handler: async (req) => mine.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-messages/:id/read',
    operation: 'messaging.in_app_message.read',
    auth: 'user',
    schema: {
      tags,
      summary: 'Mark one of my in-app messages read (a repeat keeps the first readAt)',
      params: BigIdParams,
      response: InAppMessage,
    },
    handler: async (req) => mine.read(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/in-app-messages/:id',
    operation: 'messaging.in_app_message.delete_mine',
    auth: 'user',
    schema: { tags, summary: 'Delete one of my in-app messages', params: BigIdParams, response: Ok },
    handler: async (req) => {
      await mine.remove(req.scope, req.params.id);
    },
  });
}
