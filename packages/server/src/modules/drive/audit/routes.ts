import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../platform/http/schemas.ts';
import { TaskSchema } from '../../tasks/index.ts';
import type { AccessLogsService } from './access-logs-service.ts';
import { AccessLogExportBody, AccessLogQuery, AccessLogView, SpaceAccessLogExportBody } from './schemas.ts';

const EXPORT_NOTE =
  'Answers the queued task of kind drive.share_access_logs; poll GET /api/tasks/{id} and download GET /api/tasks/{id}/result (CSV). ' +
  "Cells a spreadsheet would read as a formula (starting with = + - @) are prefixed with '. The range is fixed when the task starts.";

/** Who opened a share link, when and from where: the link's records and their CSV export. */
export function accessLogRoutes(app: FastifyInstance, logs: AccessLogsService) {
  const tags = ['DriveShareLinks'];
  const common = { auth: 'user', feature: 'drive' } as const;

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/share-links/:id/access-logs',
    operation: 'drive.share_link.access_logs',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: "A share link's access records, newest first (its creator or a manager of the node)",
      description:
        'Accesses, downloads, uploads and wrong passwords with the address and user agent. from/to bound the range ' +
        '(default the last 30 days, at most 366). Anyone else gets 404 drive.share_link_not_found.',
      params: IdParams,
      querystring: AccessLogQuery,
      response: PageOf(AccessLogView),
    },
    handler: async (req) => {
      const { page, pageSize, ...q } = req.query;
      return logs.list(req.scope, req.params.id, { ...q, page, pageSize });
    },
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/share-links/:id/access-logs/export',
    operation: 'drive.share_link.access_logs_export',
    permission: 'drive:node:view',
    status: 201,
    schema: {
      tags,
      summary: "Export a share link's access records as CSV (a task; its creator or a manager of the node)",
      description: EXPORT_NOTE,
      params: IdParams,
      body: AccessLogExportBody,
      response: TaskSchema,
    },
    handler: async (req) => logs.exportLink(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/share-links/access-logs/export',
    operation: 'drive.share_link.space_access_logs_export',
    permission: 'drive:node:view',
    errors: [404], // the space named in the body
    status: 201,
    schema: {
      tags,
      summary: 'Export the access records of every share link of a space as CSV (a task; space manager)',
      description: `A space you cannot see is 404; one you see below manager 403 drive.role_too_low. ${EXPORT_NOTE}`,
      body: SpaceAccessLogExportBody,
      response: TaskSchema,
    },
    handler: async (req) => {
      const { spaceId, ...q } = req.body;
      return logs.exportSpace(req.scope, spaceId, q);
    },
  });
}
