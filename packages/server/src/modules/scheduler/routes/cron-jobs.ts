import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import { CronJob, CronJobCreate, CronJobQuery, CronJobUpdate } from '../schemas.ts';
import type { CronJobsService } from '../service.ts';

const tags = ['CronJobs'];
const description = 'Platform users at platform scope only.';

/** CRUD and enable/disable of cron jobs. */
export function cronJobRoutes(app: FastifyInstance, jobs: CronJobsService) {
  route(app, {
    method: 'GET',
    url: '/api/cron-jobs',
    operation: 'scheduler.cron_job.list',
    auth: 'user',
    permission: 'platform:cron:list',
    schema: { tags, summary: 'List cron jobs', description, querystring: CronJobQuery, response: PageOf(CronJob) },
    handler: async (req) => jobs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/cron-jobs/:id',
    operation: 'scheduler.cron_job.get',
    auth: 'user',
    permission: 'platform:cron:list',
    schema: { tags, summary: 'One cron job', description, params: IdParams, response: CronJob },
    handler: async (req) => jobs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/cron-jobs',
    operation: 'scheduler.cron_job.create',
    auth: 'user',
    permission: 'platform:cron:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a cron job bound to a registered handler',
      description: `${description} It fires once per tick across all instances.`,
      body: CronJobCreate,
      response: CronJob,
    },
    handler: async (req) => jobs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/cron-jobs/:id',
    operation: 'scheduler.cron_job.update',
    auth: 'user',
    permission: 'platform:cron:update',
    schema: {
      tags,
      summary: 'Update a cron job (a built-in job keeps its name and handler)',
      description,
      params: IdParams,
      body: CronJobUpdate,
      response: CronJob,
    },
    handler: async (req) => jobs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/cron-jobs/:id',
    operation: 'scheduler.cron_job.delete',
    auth: 'user',
    permission: 'platform:cron:delete',
    schema: {
      tags,
      summary: 'Delete a cron job and its run log (built-in jobs cannot be deleted)',
      description,
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await jobs.remove(req.scope, req.params.id);
    },
  });

  for (const enabled of [true, false]) {
    const verb = enabled ? 'enable' : 'disable';
    route(app, {
      method: 'POST',
      url: `/api/cron-jobs/:id/${verb}`,
      operation: `scheduler.cron_job.${verb}`,
      auth: 'user',
      permission: 'platform:cron:update',
      schema: {
        tags,
        summary: enabled ? 'Enable a cron job' : 'Disable a cron job (its schedule is removed)',
        description,
        params: IdParams,
        response: CronJob,
      },
      handler: async (req) => jobs.setEnabled(req.scope, req.params.id, enabled),
    });
  }
}
