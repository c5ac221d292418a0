import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { PageOf } from '../../../../platform/http/schemas.ts';
import type { PushConfigService } from '../config-service.ts';
import type { PushLogService } from '../log-service.ts';
import { PushConfigSave, PushConfigView, PushSendLog, PushSendLogQuery } from '../schemas.ts';

const tags = ['Push'];

/** `/api/push-config` and `/api/push-send-logs`: the push provider settings and the send history. */
export function pushAdminRoutes(app: FastifyInstance, config: PushConfigService, logs: PushLogService) {
  route(app, {
    method: 'GET',
    url: '/api/push-config',
    operation: 'messaging.push_config.get',
    auth: 'user',
    permission: 'system:push-config:view',
    schema: {
      tags,
      summary: 'Read the push provider configuration of my scope (the master secret is never answered)',
      response: PushConfigView,
    },
    handler: async (req) => config.get(req.scope),
  });

  route(app, {
    method: 'PUT',
    url: '/api/push-config',
    operation: 'messaging.push_config.save',
    auth: 'user',
    permission: 'system:push-config:update',
    schema: {
      tags,
      summary: 'Save the push provider configuration of my scope',
      description:
        'The first save needs appKey and masterSecret; later, omitted fields are kept. A tenant’s own configuration replaces the platform’s, even when disabled.',
      body: PushConfigSave,
      response: PushConfigView,
    },
    handler: async (req) => config.save(req.scope, req.body),
  });

  route(app, {
    method: 'GET',
    url: '/api/push-send-logs',
    operation: 'messaging.push_send_log.list',
    auth: 'user',
    permission: 'system:push-send-log:list',
    schema: {
      tags,
      summary: 'Push send logs of my tenant, newest first (one row per recipient and provider call)',
      querystring: PushSendLogQuery,
      response: PageOf(PushSendLog),
    },
    handler: async (req) => logs.list(req.scope, req.query),
  });
}
