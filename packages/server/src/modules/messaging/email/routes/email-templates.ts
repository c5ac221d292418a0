import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import { TemplateQuery } from '../../schemas.ts';
import { EmailTemplate, EmailTemplateCreate, EmailTemplateUpdate } from '../schemas.ts';
import type { EmailTemplateService } from '../template-service.ts';

const tags = ['Email'];
const placeholders =
  'Every `{{placeholder}}` of subject and content must be listed in `variables` (400 naming the field otherwise). Values are HTML-escaped in the content.';

/** `/api/email-templates`: HTML email templates of the caller's scope (the platform's serve tenants without one). */
export function emailTemplateRoutes(app: FastifyInstance, templates: EmailTemplateService) {
  route(app, {
    method: 'GET',
    url: '/api/email-templates',
    operation: 'messaging.email_template.list',
    auth: 'user',
    permission: 'system:email-template:list',
    schema: { tags, summary: 'List email templates', querystring: TemplateQuery, response: PageOf(EmailTemplate) },
    handler: async (req) => templates.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/email-templates/:id',
    operation: 'messaging.email_template.get',
    auth: 'user',
    permission: 'system:email-template:list',
    schema: { tags, summary: 'Get an email template', params: IdParams, response: EmailTemplate },
    handler: async (req) => templates.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/email-templates',
    operation: 'messaging.email_template.create',
    auth: 'user',
    permission: 'system:email-template:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create an email template (code unique in this scope)',
      description: placeholders,
      body: EmailTemplateCreate,
      response: EmailTemplate,
    },
    handler: async (req) => templates.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/email-templates/:id',
    operation: 'messaging.email_template.update',
    auth: 'user',
    permission: 'system:email-template:update',
    schema: {
      tags,
      summary: 'Update an email template (omitted fields are kept)',
      description: placeholders,
      params: IdParams,
      body: EmailTemplateUpdate,
      response: EmailTemplate,
    },
    handler: async (req) => templates.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/email-templates/:id',
    operation: 'messaging.email_template.delete',
    auth: 'user',
    permission: 'system:email-template:delete',
    schema: { tags, summary: 'Delete an email template', params: IdParams, response: Ok },
    handler: async (req) => {
      await templates.remove(req.scope, req.params.id);
    },
  });
}
