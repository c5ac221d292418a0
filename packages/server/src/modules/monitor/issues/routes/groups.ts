import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { BatchResult, BigIdParams, PageOf } from '../../../../platform/http/schemas.ts';
import type { IssueService } from '../issue-service.ts';
import {
  ErrorGroup,
  ErrorGroupBatchIds,
  ErrorGroupBatchStatus,
  ErrorGroupDetail,
  ErrorGroupQuery,
  ErrorGroupUpdate,
} from '../schemas.ts';

const tags = ['FrontendErrors'];
const READ = 'monitor:error:list';
const MANAGE = 'monitor:error:manage';

/** `/api/frontend-errors/groups`: the issues of the caller's tenant (spec §3.4, §4.6). */
export function groupRoutes(app: FastifyInstance, issues: IssueService) {
  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/groups',
    operation: 'monitor.error_group.list',
    auth: 'user',
    permission: READ,
    schema: {
      tags,
      summary: 'List error issues, most recently seen first (or by event count)',
      querystring: ErrorGroupQuery,
      response: PageOf(ErrorGroup),
    },
    handler: async (req) => issues.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/groups/:id',
    operation: 'monitor.error_group.get',
    auth: 'user',
    permission: READ,
    schema: {
      tags,
      summary: 'Issue detail: latest stack, 14-day trend, browsers and OS, affected users, recent events',
      params: BigIdParams,
      response: ErrorGroupDetail,
    },
    handler: async (req) => issues.detail(req.scope, req.params.id),
  });

  route(app, {
    method: 'PUT',
    url: '/api/frontend-errors/groups/:id',
    operation: 'monitor.error_group.update',
    auth: 'user',
    permission: MANAGE,
    schema: {
      tags,
      summary: 'Change an issue’s status, assignee, level or note',
      description:
        'Status `resolved` records resolvedAt (kept if already resolved); any other status clears it. The assignee must be an active user of the tenant; `null` unassigns.',
      params: BigIdParams,
      body: ErrorGroupUpdate,
      response: ErrorGroup,
    },
    handler: async (req) => issues.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/frontend-errors/groups/batch-status',
    operation: 'monitor.error_group.batch_status',
    auth: 'user',
    permission: MANAGE,
    errors: [404], // an id of the batch outside the tenant
    schema: {
      tags,
      summary: 'Set the status of several issues (all or nothing)',
      body: ErrorGroupBatchStatus,
      response: BatchResult,
    },
    handler: async (req) => issues.setStatusMany(req.scope, req.body.ids, req.body.status),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/frontend-errors/groups/batch',
    operation: 'monitor.error_group.batch_delete',
    auth: 'user',
    permission: MANAGE,
    errors: [404], // an id of the batch outside the tenant
    schema: {
      tags,
      summary: 'Delete several issues with their events and affected users (all or nothing)',
      body: ErrorGroupBatchIds,
      response: BatchResult,
    },
    handler: async (req) => issues.removeMany(req.scope, req.body.ids),
  });
}
