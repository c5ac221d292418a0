import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../platform/http/schemas.ts';
import { contentResponses } from '../../files/index.ts';
import { Task, TaskQuery } from '../schemas.ts';
import type { TaskFiles, TasksService } from '../tasks-service.ts';

const tags = ['AsyncTasks'];

/** The signed-in user's own tasks; another user's or tenant's task is 404. */
export function taskRoutes(app: FastifyInstance, tasks: TasksService, files: TaskFiles) {
  route(app, {
    method: 'GET',
    url: '/api/tasks',
    operation: 'tasks.task.list',
    auth: 'user',
    schema: {
      tags,
      summary: 'My tasks, newest first',
      querystring: TaskQuery,
      response: PageOf(Task),
    },
    handler: async (req) => tasks.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/tasks/:id',
    operation: 'tasks.task.get',
    auth: 'user',
    schema: { tags, summary: 'One of my tasks: status, progress, result', params: IdParams, response: Task },
    handler: async (req) => tasks.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/tasks/:id/cancel',
    operation: 'tasks.task.cancel',
    auth: 'user',
    schema: {
      tags,
      summary: 'Cancel one of my tasks',
      description:
        'A queued task is cancelled at once; a running one is asked to stop and becomes `cancelled` at its next check ' +
        '(its partial output is discarded). Cancelling a cancelled task changes nothing; a finished one answers 409 tasks.task_finished.',
      params: IdParams,
      response: Task,
    },
    handler: async (req) => tasks.cancel(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/tasks/:id/result',
    operation: 'tasks.task.result',
    auth: 'user',
    reply: replyFormats.file,
    responses: contentResponses,
    schema: {
      tags,
      summary: 'Download the result file of one of my tasks',
      description:
        'The file content (Range and ETag as for files). 404 tasks.result_not_found while the task has not succeeded ' +
        'and once its result expired (7 days after it finished).',
      params: IdParams,
      response: Type.String({ format: 'binary' }),
    },
    handler: async (req, reply) => {
      const file = await tasks.resultFile(req.scope, req.params.id);
      return files.sendDownload(req, reply, file);
    },
  });
}
