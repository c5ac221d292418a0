import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import { ConnectionTestResult } from '../../../platform/provider-configs/index.ts';
import type { ChannelConfigService } from './configs-service.ts';
import { ChannelConfig, ChannelConfigCreate, ChannelConfigQuery, ChannelConfigUpdate } from './schemas.ts';

const tags = ['Payment'];
const feature = 'payment';

/** `/api/payment/channel-configs`: the caller's tenant's channel configurations (issue 16 item 1). */
export function channelConfigRoutes(app: FastifyInstance, configs: ChannelConfigService) {
  route(app, {
    method: 'GET',
    url: '/api/payment/channel-configs',
    operation: 'payment.channel_config.list',
    auth: 'user',
    feature,
    permission: 'payment:config:view',
    schema: {
      tags,
      summary: 'List channel configurations (secrets are never answered: see hasSecrets)',
      querystring: ChannelConfigQuery,
      response: PageOf(ChannelConfig),
    },
    handler: async (req) => configs.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/payment/channel-configs/:id',
    operation: 'payment.channel_config.get',
    auth: 'user',
    feature,
    permission: 'payment:config:view',
    schema: { tags, summary: 'Get a channel configuration', params: IdParams, response: ChannelConfig },
    handler: async (req) => configs.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/channel-configs',
    operation: 'payment.channel_config.create',
    auth: 'user',
    feature,
    permission: 'payment:config:edit',
    status: 201,
    schema: {
      tags,
      summary: 'Create a channel configuration (fields per channel; secrets stored encrypted)',
      body: ChannelConfigCreate,
      response: ChannelConfig,
    },
    handler: async (req) => configs.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/payment/channel-configs/:id',
    operation: 'payment.channel_config.update',
    auth: 'user',
    feature,
    permission: 'payment:config:edit',
    schema: {
      tags,
      summary: 'Update a channel configuration (the channel cannot change; omitted secrets are kept)',
      params: IdParams,
      body: ChannelConfigUpdate,
      response: ChannelConfig,
    },
    handler: async (req) => configs.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/payment/channel-configs/:id',
    operation: 'payment.channel_config.delete',
    auth: 'user',
    feature,
    permission: 'payment:config:edit',
    schema: {
      tags,
      summary: 'Delete a channel configuration (not one that orders were made with: disable it)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await configs.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/payment/channel-configs/:id/test',
    operation: 'payment.channel_config.test',
    auth: 'user',
    feature,
    permission: 'payment:config:edit',
    schema: {
      tags,
      summary: 'Connection test: a signed query of a probe order that cannot exist (credentials, keys, reachability)',
      params: IdParams,
      response: ConnectionTestResult,
    },
    handler: async (req) => configs.test(req.scope, req.params.id),
  });
}
