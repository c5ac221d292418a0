import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import { InAppTemplate, TemplateCreate, TemplateQuery, TemplateUpdate } from '../schemas.ts';
import type { TemplateService } from '../template-service.ts';

const tags = ['InAppMessages'];
const placeholders =
  'Title and content are plain text; every `{{name}}` placeholder must be listed in variables (400 naming the field otherwise).';

/** In-app templates of the tenant (platform scope: the platform's, used by tenants without their own code). */
export function templateRoutes(app: FastifyInstance, templates: TemplateService) {
  route(app, {
    method: 'GET',
    url: '/api/in-app-templates',
    operation: 'messaging.in_app_template.list',
    auth: 'user',
    permission: 'system:in-app-template:list',
    schema: { tags, summary: 'List in-app templates', querystring: TemplateQuery, response: PageOf(InAppTemplate) },
    handler: async (req) => templates.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/in-app-templates/:id',
    operation: 'messaging.in_app_template.get',
    auth: 'user',
    permission: 'system:in-app-template:list',
    schema: { tags, summary: 'Get an in-app template', params: IdParams, response: InAppTemplate },
    handler: async (req) => templates.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/in-app-templates',
    operation: 'messaging.in_app_template.create',
    auth: 'user',
    permission: 'system:in-app-template:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create an in-app template (code unique in the tenant)',
      description: placeholders,
      body: TemplateCreate,
      response: InAppTemplate,
    },
    handler: async (req) => templates.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/in-app-templates/:id',
    operation: 'messaging.in_app_template.update',
    auth: 'user',
    permission: 'system:in-app-template:update',
    schema: {
      tags,
      summary: 'Update an in-app template (omitted fields keep their value)',
      description: placeholders,
      params: IdParams,
      body: TemplateUpdate,
      response: InAppTemplate,
    },
    handler: async (req) => templates.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/in-app-templates/:id',
    operation: 'messaging.in_app_template.delete',
    auth: 'user',
    permission: 'system:in-app-template:delete',
    schema: {
      tags,
      summary: 'Delete an in-app template (messages written from it keep their text)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await templates.remove(req.scope, req.params.id);
    },
  });
}
