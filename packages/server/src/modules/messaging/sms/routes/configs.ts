import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { SmsConfigService } from '../config-service.ts';
import { SmsConfig, SmsConfigCreate, SmsConfigQuery, SmsConfigUpdate } from '../schemas.ts';

const tags = ['Sms'];

/** `/api/sms-configs`: the SMS provider configurations of the caller's tenant (spec §4.4). */
export function smsConfigRoutes(app: FastifyInstance, configs: SmsConfigService) {
  route(app, {
    method: 'GET',
    url: '/api/sms-configs',
    operation: 'messaging.sms_config.list',
    auth: 'user',
    permission: 'system:sms-config:list',
    schema: {
      tags,
      summary: 'List SMS configurations (secrets are never answered: see accessKeySecretSet)',
      querystring: SmsConfigQuery,
      response: PageOf(SmsConfig),
    },
    handler: async (req) => configs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/sms-configs/:id',
    operation: 'messaging.sms_config.get',
    auth: 'user',
    permission: 'system:sms-config:list',
    schema: { tags, summary: 'Get an SMS configuration', params: IdParams, response: SmsConfig },
    handler: async (req) => configs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/sms-configs',
    operation: 'messaging.sms_config.create',
    auth: 'user',
    permission: 'system:sms-config:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create an SMS configuration (Alibaba Cloud or Tencent Cloud; the secret is stored encrypted)',
      description:
        'The first active configuration of a tenant becomes its default. Tencent Cloud needs sdkAppId. The endpoint defaults to the provider’s official one.',
      body: SmsConfigCreate,
      response: SmsConfig,
    },
    handler: async (req) => configs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/sms-configs/:id',
    operation: 'messaging.sms_config.update',
    auth: 'user',
    permission: 'system:sms-config:update',
    schema: {
      tags,
      summary: 'Update an SMS configuration (an omitted secret is kept; the provider cannot change)',
      description: 'Disabling the default makes the tenant send with the platform’s default configuration.',
      params: IdParams,
      body: SmsConfigUpdate,
      response: SmsConfig,
    },
    handler: async (req) => configs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/sms-configs/:id',
    operation: 'messaging.sms_config.delete',
    auth: 'user',
    permission: 'system:sms-config:delete',
    schema: {
      tags,
      summary: 'Delete an SMS configuration (not one templates use; the default only when it is the last)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await configs.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/sms-configs/:id/default',
    operation: 'messaging.sms_config.make_default',
    auth: 'user',
    permission: 'system:sms-config:update',
    schema: {
      tags,
      summary: 'Make this the default SMS configuration (the previous default is unset atomically)',
      params: IdParams,
      response: SmsConfig,
    },
    handler: async (req) => configs.makeDefault(req.scope, req.params.id),
  });
}
