import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { OperationLogFilterSchema } from '../../system/index.ts';
import { OPERATION_LOG_EXPORT } from '../exports/operation-logs.ts';
import { Task } from '../schemas.ts';
import type { TasksService } from '../tasks-service.ts';

/** Exports start a task of the caller; its progress and result are under /api/tasks. */
export function exportJobRoutes(app: FastifyInstance, tasks: TasksService) {
  route(app, {
    method: 'POST',
    url: '/api/export-jobs/operation-logs',
    operation: 'tasks.export_job.operation_logs',
    auth: 'user',
    permission: 'monitor:operation-log:list',
    status: 201,
    schema: {
      tags: ['ExportJobs'],
      summary: "Export the tenant's operation log as CSV (a task)",
      description:
        'The body takes the filters of GET /api/operation-logs (userId, username, module, operation, ip, statusCode, from, to). ' +
        'Answers the queued task; poll GET /api/tasks/{id} and download GET /api/tasks/{id}/result (kept 7 days). ' +
        "Cells a spreadsheet would read as a formula (starting with = + - @) are prefixed with '.",
      body: OperationLogFilterSchema,
      response: Task,
    },
    handler: async (req) => tasks.create(req.scope, OPERATION_LOG_EXPORT, req.body),
  });
}
