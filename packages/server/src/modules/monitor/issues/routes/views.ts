import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { PageOf } from '../../../../platform/http/schemas.ts';
import type { IssueService } from '../issue-service.ts';
import { CleanQuery, CleanResult, ErrorEvent, ErrorEventQuery, Overview } from '../schemas.ts';

const tags = ['FrontendErrors'];

/** Overview, event list and retention of the caller's tenant's error reports (spec §4.6). */
export function viewRoutes(app: FastifyInstance, issues: IssueService) {
  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/overview',
    operation: 'monitor.error_overview.get',
    auth: 'user',
    permission: 'monitor:error:list',
    schema: {
      tags,
      summary: 'Error kinds, unresolved issues, occurrences, affected users, new today, trend, top issues',
      response: Overview,
    },
    handler: async (req) => issues.overview(req.scope),
  });

  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/events',
    operation: 'monitor.error_event.list',
    auth: 'user',
    permission: 'monitor:error:list',
    schema: {
      tags,
      summary: 'List error events, newest first',
      querystring: ErrorEventQuery,
      response: PageOf(ErrorEvent),
    },
    handler: async (req) => issues.events(req.scope, req.query),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/frontend-errors/clean',
    operation: 'monitor.error_event.clean',
    auth: 'user',
    permission: 'monitor:error:manage',
    schema: {
      tags,
      summary: 'Delete events older than `days` days and the issues left without events',
      querystring: CleanQuery,
      response: CleanResult,
    },
    handler: async (req) => issues.clean(req.scope, req.query.days),
  });
}
