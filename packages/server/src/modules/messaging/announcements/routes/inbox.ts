import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../../platform/http/schemas.ts';
import type { InboxService } from '../inbox-service.ts';
import { InboxItem, InboxQuery, PublishedQuery, ReadAllResult, ReadResult, UnreadCount } from '../schemas.ts';

const tags = ['Announcements'];
const audienceNote =
  'Any signed-in user; lists only published, unexpired announcements of the tenant sent to all or to a target the caller matches (own user, a role, their department or an ancestor of it).';

/** The user side: what reaches me, and my read marks. Static paths never clash with `/:id` (find-my-way prefers them). */
export function inboxRoutes(app: FastifyInstance, inbox: InboxService) {
  route(app, {
    method: 'GET',
    url: '/api/announcements/inbox',
    operation: 'messaging.announcement.inbox',
    auth: 'user',
    schema: {
      tags,
      summary: 'My announcements with their read state, newest first',
      description: audienceNote,
      querystring: InboxQuery,
      response: PageOf(InboxItem),
    },
    handler: async (req) => inbox.inbox(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/announcements/published',
    operation: 'messaging.announcement.published',
    auth: 'user',
    schema: {
      tags,
      summary: 'Published announcements that reach me: urgent first, then by priority, newest first',
      description: audienceNote,
      querystring: PublishedQuery,
      response: PageOf(InboxItem),
    },
    handler: async (req) => inbox.published(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/announcements/unread-count',
    operation: 'messaging.announcement.unread_count',
    auth: 'user',
    schema: { tags, summary: 'How many announcements that reach me I have not read', response: UnreadCount },
    handler: async (req) => inbox.unreadCount(req.scope),
  });

  route(app, {
    method: 'POST',
    url: '/api/announcements/read-all',
    operation: 'messaging.announcement.read_all',
    auth: 'user',
    audit: false, // a read mark is not an administrative change
    schema: { tags, summary: 'Mark every announcement that reaches me read', response: ReadAllResult },
    handler: async (req) => inbox.readAll(req.scope),
  });

  route(app, {
    method: 'POST',
    url: '/api/announcements/:id/read',
    operation: 'messaging.announcement.read',
    auth: 'user',
    audit: false,
    schema: {
      tags,
      summary: 'Mark one announcement read (a repeat keeps the first read time)',
      description: 'An announcement that does not reach the caller (or is not published) answers 404.',
      params: IdParams,
      response: ReadResult,
    },
    handler: async (req) => inbox.read(req.scope, req.params.id),
  });
}
