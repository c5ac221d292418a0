import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BatchIds, BatchResult, IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import {
  Announcement,
  AnnouncementCreate,
  AnnouncementDetail,
  AnnouncementQuery,
  AnnouncementUpdate,
  ReadStats,
  ReadStatsQuery,
} from '../schemas.ts';
import type { AnnouncementService } from '../service.ts';

const tags = ['Announcements'];
const sanitizing =
  'The HTML content is sanitized on save like notices: formatting, http/https/mailto links and http/https or data:image (png, jpeg, gif, webp) images are kept; scripts, event handlers, style, iframe and object are removed. Targets must be users, roles or departments of the tenant.';

/** Administration of the tenant's announcements. */
export function adminRoutes(app: FastifyInstance, announcements: AnnouncementService) {
  route(app, {
    method: 'GET',
    url: '/api/announcements',
    operation: 'messaging.announcement.list',
    auth: 'user',
    permission: 'system:announcement:list',
    schema: {
      tags,
      summary: 'List announcements (every status)',
      querystring: AnnouncementQuery,
      response: PageOf(Announcement),
    },
    handler: async (req) => announcements.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/announcements/:id',
    operation: 'messaging.announcement.get',
    auth: 'user',
    permission: 'system:announcement:list',
    schema: { tags, summary: 'Get an announcement with its targets', params: IdParams, response: AnnouncementDetail },
    handler: async (req) => announcements.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/announcements/:id/read-stats',
    operation: 'messaging.announcement.read_stats',
    auth: 'user',
    permission: 'system:announcement:list',
    schema: {
      tags,
      summary: 'Audience size, read and unread counts, and a page of readers (latest first)',
      description:
        'The audience is who the announcement reaches now: every active user of the tenant, or the active users its targets reach. Readers outside it are not counted.',
      params: IdParams,
      querystring: ReadStatsQuery,
      response: ReadStats,
    },
    handler: async (req) => announcements.readStats(req.scope, req.params.id, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/announcements',
    operation: 'messaging.announcement.create',
    auth: 'user',
    permission: 'system:announcement:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a draft announcement',
      description: sanitizing,
      body: AnnouncementCreate,
      response: AnnouncementDetail,
    },
    handler: async (req) => announcements.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/announcements/:id',
    operation: 'messaging.announcement.update',
    auth: 'user',
    permission: 'system:announcement:update',
    schema: {
      tags,
      summary: 'Update a draft or withdrawn announcement (a published one answers 409)',
      description: `${sanitizing} Given targets replace the old ones; targetType all drops them.`,
      params: IdParams,
      body: AnnouncementUpdate,
      response: AnnouncementDetail,
    },
    handler: async (req) => announcements.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/announcements/:id/publish',
    operation: 'messaging.announcement.publish',
    auth: 'user',
    permission: 'system:announcement:publish',
    schema: {
      tags,
      summary: 'Publish an announcement and push announcement.published to its audience',
      description:
        'publishTime becomes now. Publishing a published announcement changes nothing and pushes nothing; one whose expireTime has passed answers 409.',
      params: IdParams,
      response: Announcement,
    },
    handler: async (req) => announcements.publish(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/announcements/:id/withdraw',
    operation: 'messaging.announcement.withdraw',
    auth: 'user',
    permission: 'system:announcement:publish',
    schema: {
      tags,
      summary: 'Withdraw a published announcement (a repeat changes nothing; a draft answers 409)',
      params: IdParams,
      response: Announcement,
    },
    handler: async (req) => announcements.withdraw(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/announcements/batch',
    operation: 'messaging.announcement.batch_delete',
    auth: 'user',
    permission: 'system:announcement:delete',
    errors: [404], // an id of the batch outside the tenant
    schema: { tags, summary: 'Delete several announcements, all or nothing', body: BatchIds, response: BatchResult },
    handler: async (req) => announcements.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/announcements/:id',
    operation: 'messaging.announcement.delete',
    auth: 'user',
    permission: 'system:announcement:delete',
    schema: {
      tags,
      summary: 'Delete an announcement (its targets and read marks go with it)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await announcements.remove(req.scope, req.params.id);
    },
  });
}
