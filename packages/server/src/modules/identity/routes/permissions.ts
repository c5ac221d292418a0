import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import type { RolesService } from '../roles-service.ts';
import { PermissionGroups } from '../schemas.ts';

export function permissionsRoutes(app: FastifyInstance, roles: RolesService) {
  route(app, {
    method: 'GET',
    url: '/api/permissions',
    operation: 'identity.permission.list',
    auth: 'user',
    permission: 'system:role:list',
    schema: {
      tags: ['Roles'],
      summary: 'Every permission code the routes declare, grouped by its first segment',
      description: 'What a role may hold; platform:* codes are listed only at platform scope.',
      response: PermissionGroups,
    },
    handler: async (req) => roles.permissionGroups(req.scope),
  });
}
