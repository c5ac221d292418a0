import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { ConnectedAppsService } from './connected-apps-service.ts';
import { ConnectedApp } from './schemas.ts';

/** `/api/open-platform/connected-apps`: the signed-in user's authorized applications. */
export function connectedAppsRoutes(app: FastifyInstance, connectedApps: ConnectedAppsService): void {
  route(app, {
    method: 'GET',
    url: '/api/open-platform/connected-apps',
    operation: 'open_platform.connected_app.list',
    auth: 'user',
    schema: {
      tags: ['OpenApps'],
      summary: 'Applications I authorized (consents), with the scopes granted',
      response: Type.Array(ConnectedApp),
    },
    handler: async (req) => connectedApps.list(req.scope),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/open-platform/connected-apps/:id',
    operation: 'open_platform.connected_app.revoke',
    auth: 'user',
    schema: {
      tags: ['OpenApps'],
      summary: 'Disconnect an application: its consent, tokens and open codes for me end now',
      params: IdParams,
      response: Type.Null(),
    },
    handler: async (req) => {
      await connectedApps.revoke(req.scope, req.params.id);
      return null;
    },
  });
}
