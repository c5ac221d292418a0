import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { AppsService } from './apps-service.ts';
import {
  App,
  AppCreate,
  AppQuery,
  AppStatusBody,
  AppUpdate,
  AppWithSecret,
  ScopeInfo,
  SecretRotateBody,
} from './schemas.ts';

const tags = ['OpenApps'];

/** `/api/open-platform/apps`: applications (OAuth clients) of the caller's tenant (spec §2.1, §4.1). */
export function appRoutes(app: FastifyInstance, apps: AppsService) {
  route(app, {
    method: 'GET',
    url: '/api/open-platform/scopes',
    operation: 'open_platform.scope.list',
    auth: 'user',
    permission: 'open:app:list',
    schema: { tags, summary: 'The scopes an application may be allowed', response: Type.Array(ScopeInfo) },
    handler: async () => apps.scopes(),
  });

  route(app, {
    method: 'GET',
    url: '/api/open-platform/apps',
    operation: 'open_platform.app.list',
    auth: 'user',
    permission: 'open:app:list',
    schema: {
      tags,
      summary: 'List applications (secrets are never answered: see secretHint)',
      querystring: AppQuery,
      response: PageOf(App),
    },
    handler: async (req) => apps.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/open-platform/apps/:id',
    operation: 'open_platform.app.get',
    auth: 'user',
    permission: 'open:app:list',
    schema: { tags, summary: 'Get an application', params: IdParams, response: App },
    handler: async (req) => apps.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/open-platform/apps',
    operation: 'open_platform.app.create',
    auth: 'user',
    permission: 'open:app:create',
    status: 201,
    schema: {
      tags,
      summary: 'Register an application; a confidential client’s secret is in this response only',
      description:
        'Public clients cannot use client_credentials; refresh_token needs authorization_code; ' +
        'authorization_code needs a redirect URI (https, or http on a loopback host; no fragment). ' +
        'Only the SHA-256 of the secret is stored: it cannot be shown again, only rotated.',
      body: AppCreate,
      response: AppWithSecret,
    },
    handler: async (req) => apps.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/open-platform/apps/:id',
    operation: 'open_platform.app.update',
    auth: 'user',
    permission: 'open:app:update',
    schema: {
      tags,
      summary: 'Update an application (omitted fields are kept; the client type cannot change)',
      description: 'Removing allowed scopes revokes at once every token that holds one of them.',
      params: IdParams,
      body: AppUpdate,
      response: App,
    },
    handler: async (req) => apps.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/open-platform/apps/:id/status',
    operation: 'open_platform.app.set_status',
    auth: 'user',
    permission: 'open:app:update',
    schema: {
      tags,
      summary: 'Enable or disable an application (a disabled one cannot authenticate; its tokens stop working)',
      params: IdParams,
      body: AppStatusBody,
      response: App,
    },
    handler: async (req) => apps.setStatus(req.scope, req.params.id, req.body.status),
  });

  route(app, {
    method: 'POST',
    url: '/api/open-platform/apps/:id/secret',
    operation: 'open_platform.app.rotate_secret',
    auth: 'user',
    permission: 'open:app:secret',
    schema: {
      tags,
      summary: 'Rotate a confidential client’s secret; the new one is in this response only',
      description:
        'The replaced secret keeps working for graceSeconds (default one day) so the client can switch; ' +
        'a further rotation ends the grace of the one before.',
      params: IdParams,
      body: SecretRotateBody,
      response: AppWithSecret,
    },
    handler: async (req) => apps.rotateSecret(req.scope, req.params.id, req.body?.graceSeconds),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/open-platform/apps/:id',
    operation: 'open_platform.app.delete',
    auth: 'user',
    permission: 'open:app:delete',
    schema: {
      tags,
      summary: 'Delete an application with its tokens, codes, consents and webhooks',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await apps.remove(req.scope, req.params.id);
    },
  });
}
