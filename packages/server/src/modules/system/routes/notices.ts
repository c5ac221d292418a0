import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { BatchIds, BatchResult, IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { NoticeService } from '../notice-service.ts';
import { Notice, NoticeCreate, NoticeQuery, NoticeUpdate, PublishedNotice, PublishedNoticeQuery } from '../schemas.ts';

const tags = ['Notices'];

export function noticeRoutes(app: FastifyInstance, notices: NoticeService) {
  route(app, {
    method: 'GET',
    url: '/api/notices',
    operation: 'system.notice.list',
    auth: 'user',
    permission: 'system:notice:list',
    schema: { tags, summary: 'List notices (every status)', querystring: NoticeQuery, response: PageOf(Notice) },
    handler: async (req) => notices.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/notices/published',
    operation: 'system.notice.published',
    auth: 'user',
    schema: {
      tags,
      summary: 'Published notices of my tenant, newest first (any signed-in user)',
      querystring: PublishedNoticeQuery,
      response: PageOf(PublishedNotice),
    },
    handler: async (req) => notices.published(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/notices/:id/view',
    operation: 'system.notice.view',
    auth: 'user',
    schema: {
      tags,
      summary: 'One published notice as users see it (any signed-in user; drafts and withdrawn ones are 404)',
      params: IdParams,
      response: PublishedNotice,
    },
    handler: async (req) => notices.publishedOne(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/notices/:id',
    operation: 'system.notice.get',
    auth: 'user',
    permission: 'system:notice:list',
    schema: { tags, summary: 'Get a notice', params: IdParams, response: Notice },
    handler: async (req) => notices.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/notices',
    operation: 'system.notice.create',
    auth: 'user',
    permission: 'system:notice:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a draft notice',
      description:
        'The HTML content is sanitized on save: formatting, http/https/mailto links and http/https or data:image (png, jpeg, gif, webp) images are kept; scripts, event handlers, style, iframe and object are removed.',
      body: NoticeCreate,
      response: Notice,
    },
    handler: async (req) => notices.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/notices/:id',
    operation: 'system.notice.update',
    auth: 'user',
    permission: 'system:notice:update',
    schema: {
      tags,
      summary: 'Update a notice (content sanitized on save)',
      params: IdParams,
      body: NoticeUpdate,
      response: Notice,
    },
    handler: async (req) => notices.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/notices/:id/publish',
    operation: 'system.notice.publish',
    auth: 'user',
    permission: 'system:notice:publish',
    schema: {
      tags,
      summary: 'Publish a notice and push notice.published to the signed-in users of the tenant',
      description: 'Publishing a published notice changes nothing and pushes nothing.',
      params: IdParams,
      response: Notice,
    },
    handler: async (req) => notices.publish(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/notices/:id/withdraw',
    operation: 'system.notice.withdraw',
    auth: 'user',
    permission: 'system:notice:publish',
    schema: {
      tags,
      summary: 'Withdraw a published notice (a repeat changes nothing; a draft answers 409)',
      params: IdParams,
      response: Notice,
    },
    handler: async (req) => notices.withdraw(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/notices/batch',
    operation: 'system.notice.batch_delete',
    auth: 'user',
    permission: 'system:notice:delete',
    errors: [404], // an id of the batch outside the tenant
    schema: { tags, summary: 'Delete several notices, all or nothing', body: BatchIds, response: BatchResult },
    handler: async (req) => notices.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/notices/:id',
    operation: 'system.notice.delete',
    auth: 'user',
    permission: 'system:notice:delete',
    schema: { tags, summary: 'Delete a notice', params: IdParams, response: Ok },
    handler: async (req) => {
      await notices.remove(req.scope, req.params.id);
    },
  });
}
