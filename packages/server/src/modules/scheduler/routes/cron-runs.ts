import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../platform/http/schemas.ts';
import { CronHandler, CronJobRun, CronJobRunQuery, CronPreview, CronPreviewBody } from '../schemas.ts';
import type { CronJobsService } from '../service.ts';

const tags = ['CronJobs'];
const description = 'Platform users at platform scope only.';

/** Handlers, next-run preview, run now and the run log. */
export function cronRunRoutes(app: FastifyInstance, jobs: CronJobsService) {
  route(app, {
    method: 'GET',
    url: '/api/cron-jobs/handlers',
    operation: 'scheduler.cron_handler.list',
    auth: 'user',
    permission: 'platform:cron:list',
    schema: {
      tags,
      summary: 'Registered handlers (system tasks) a cron job can run',
      description,
      response: Type.Array(CronHandler),
    },
    handler: async (req) => jobs.handlers(req.scope),
  });

  route(app, {
    method: 'POST',
    url: '/api/cron-jobs/preview',
    operation: 'scheduler.cron_job.preview',
    auth: 'user',
    permission: 'platform:cron:list',
    audit: false,
    schema: {
      tags,
      summary: 'The next fire times of a cron expression in a time zone',
      description,
      body: CronPreviewBody,
      response: CronPreview,
    },
    handler: async (req) => jobs.preview(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/cron-jobs/:id/run',
    operation: 'scheduler.cron_job.run',
    auth: 'user',
    permission: 'platform:cron:run',
    status: 201,
    schema: {
      tags,
      summary: 'Run now: queues one run (trigger manual), also of a disabled job',
      description: `${description} Answers the run row; poll the run log for its outcome.`,
      params: IdParams,
      response: CronJobRun,
    },
    handler: async (req) => jobs.runNow(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/cron-jobs/:id/runs',
    operation: 'scheduler.cron_job_run.list',
    auth: 'user',
    permission: 'platform:cron:list',
    schema: {
      tags,
      summary: 'Run log of a cron job, newest first: duration, result and error',
      description,
      params: IdParams,
      querystring: CronJobRunQuery,
      response: PageOf(CronJobRun),
    },
    handler: async (req) => {
      const { page, pageSize, ...filter } = req.query;
      return jobs.runs(req.scope, req.params.id, { page, pageSize, ...filter });
    },
  });
}
