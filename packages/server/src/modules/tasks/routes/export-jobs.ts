import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { OperationLogFilterSchema, OwnOperationLogFilterSchema } from '../../system/index.ts';
import { OPERATION_LOG_EXPORT, ownOperationLogs } from '../exports/operation-logs.ts';
import { Task } from '../schemas.ts';
import type { TasksService } from '../tasks-service.ts';

/**
 * Exports start a task of the caller; its progress and result are under /api/tasks. The own-records
 * export sits under /api/profile beside the list it exports.
 */
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

  route(app, {
    method: 'POST',
    url: '/api/profile/operation-logs/export',
    operation: 'tasks.export_job.my_operation_logs',
    auth: 'user',
    status: 201,
    schema: {
      tags: ['Profile'],
      summary: 'Export my own operation records as CSV (a task)',
      description:
        'No permission: everyone may export what they did (GET /api/profile/operation-logs shows the same rows). ' +
        'The body takes the filters module, operation, ip, statusCode, from, to; the records are always the caller’s own ' +
        'in the caller’s tenant, and a body naming a user (userId, username) is refused with 400. ' +
        'Answers the queued task, which is the caller’s: poll GET /api/tasks/{id} and download GET /api/tasks/{id}/result (kept 7 days). ' +
        "Cells a spreadsheet would read as a formula (starting with = + - @) are prefixed with '.",
      body: OwnOperationLogFilterSchema,
      response: Task,
    },
    handler: async (req) => tasks.create(req.scope, OPERATION_LOG_EXPORT, ownOperationLogs(req.scope, req.body)),
  });
}
