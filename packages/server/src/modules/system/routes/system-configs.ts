import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { ConfigService } from '../config-service.ts';
import {
  ConfigKeyParams,
  ConfigValue,
  SystemConfig,
  SystemConfigCreate,
  SystemConfigQuery,
  SystemConfigUpdate,
} from '../schemas.ts';

const tags = ['SystemConfigs'];

export function systemConfigRoutes(app: FastifyInstance, configs: ConfigService) {
  route(app, {
    method: 'GET',
    url: '/api/system-configs',
    operation: 'system.config.list',
    auth: 'user',
    permission: 'system:config:list',
    schema: {
      tags,
      summary: 'List configuration entries',
      querystring: SystemConfigQuery,
      response: PageOf(SystemConfig),
    },
    handler: async (req) => configs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/system-configs/:id',
    operation: 'system.config.get',
    auth: 'user',
    permission: 'system:config:list',
    schema: { tags, summary: 'Get a configuration entry', params: IdParams, response: SystemConfig },
    handler: async (req) => configs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/system-configs/key/:key',
    operation: 'system.config.value',
    auth: 'user',
    schema: {
      tags,
      summary: 'The value of a key for any signed-in user: tenant value, else platform value',
      params: ConfigKeyParams,
      response: ConfigValue,
    },
    handler: async (req) => configs.valueOf(req.scope, req.params.key),
  });

  route(app, {
    method: 'POST',
    url: '/api/system-configs',
    operation: 'system.config.create',
    auth: 'user',
    permission: 'system:config:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a configuration entry (key unique per tenant)',
      body: SystemConfigCreate,
      response: SystemConfig,
    },
    handler: async (req) => configs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/system-configs/:id',
    operation: 'system.config.update',
    auth: 'user',
    permission: 'system:config:update',
    schema: {
      tags,
      summary: 'Update a configuration entry (a built-in entry keeps its key)',
      params: IdParams,
      body: SystemConfigUpdate,
      response: SystemConfig,
    },
    handler: async (req) => configs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/system-configs/:id',
    operation: 'system.config.delete',
    auth: 'user',
    permission: 'system:config:delete',
    schema: {
      tags,
      summary: 'Delete a configuration entry (built-in entries cannot be deleted)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await configs.remove(req.scope, req.params.id);
    },
  });
}
