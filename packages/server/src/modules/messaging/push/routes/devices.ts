import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../../platform/http/schemas.ts';
import type { PushDeviceService } from '../device-service.ts';
import { PushDevice, PushDeviceBind, PushDeviceQuery } from '../schemas.ts';

const tags = ['Push'];

/** `/api/push-devices`: the signed-in user's own devices; no permission beyond signing in. */
export function pushDeviceRoutes(app: FastifyInstance, devices: PushDeviceService) {
  route(app, {
    method: 'POST',
    url: '/api/push-devices',
    operation: 'messaging.push_device.bind',
    auth: 'user',
    status: 201,
    schema: {
      tags,
      summary: 'Bind this device to me for push notifications',
      description:
        'Idempotent per registration id: binding it again refreshes it (and reactivates it); an id bound to another user of the tenant moves to me.',
      body: PushDeviceBind,
      response: PushDevice,
    },
    handler: async (req) => devices.bind(req.scope, req.body),
  });

  route(app, {
    method: 'GET',
    url: '/api/push-devices',
    operation: 'messaging.push_device.list',
    auth: 'user',
    schema: {
      tags,
      summary: 'My bound devices, most recently seen first',
      querystring: PushDeviceQuery,
      response: PageOf(PushDevice),
    },
    handler: async (req) => devices.mine(req.scope, req.query),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/push-devices/:id',
    operation: 'messaging.push_device.unbind',
    auth: 'user',
    schema: {
      tags,
      summary: 'Unbind one of my devices (another user’s is not found)',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await devices.unbind(req.scope, req.params.id);
    },
  });
}
