import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import { TemplateQuery } from '../../schemas.ts';
import { SmsTemplate, SmsTemplateCreate, SmsTemplateUpdate } from '../schemas.ts';
import type { SmsTemplateService } from '../template-service.ts';

const tags = ['Sms'];

/** `/api/sms-templates`: the SMS templates of the caller's tenant (spec §4.4). */
export function smsTemplateRoutes(app: FastifyInstance, templates: SmsTemplateService) {
  route(app, {
    method: 'GET',
    url: '/api/sms-templates',
    operation: 'messaging.sms_template.list',
    auth: 'user',
    permission: 'system:sms-template:list',
    schema: { tags, summary: 'List SMS templates', querystring: TemplateQuery, response: PageOf(SmsTemplate) },
    handler: async (req) => templates.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/sms-templates/:id',
    operation: 'messaging.sms_template.get',
    auth: 'user',
    permission: 'system:sms-template:list',
    schema: { tags, summary: 'Get an SMS template', params: IdParams, response: SmsTemplate },
    handler: async (req) => templates.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/sms-templates',
    operation: 'messaging.sms_template.create',
    auth: 'user',
    permission: 'system:sms-template:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create an SMS template',
      description:
        'Names the template registered with the provider and its parameters in order (Tencent Cloud takes them by position, Alibaba Cloud by name); without `variables`, the placeholders of `content` in order of first use.',
      body: SmsTemplateCreate,
      response: SmsTemplate,
    },
    handler: async (req) => templates.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/sms-templates/:id',
    operation: 'messaging.sms_template.update',
    auth: 'user',
    permission: 'system:sms-template:update',
    schema: {
      tags,
      summary: 'Update an SMS template (omitted fields are kept; configId null = the default configuration)',
      params: IdParams,
      body: SmsTemplateUpdate,
      response: SmsTemplate,
    },
    handler: async (req) => templates.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/sms-templates/:id',
    operation: 'messaging.sms_template.delete',
    auth: 'user',
    permission: 'system:sms-template:delete',
    schema: { tags, summary: 'Delete an SMS template', params: IdParams, response: Ok },
    handler: async (req) => {
      await templates.remove(req.scope, req.params.id);
    },
  });
}
