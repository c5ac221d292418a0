import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { BatchResult, IdParams, PageOf } from '../../../platform/http/schemas.ts';
import type { RolesService } from '../roles-service.ts';
import { RoleCreateBody, RoleDetail, RoleListQuery, RoleUpdateBody, RoleView } from '../schemas.ts';

const tags = ['Roles'];

export function rolesRoutes(app: FastifyInstance, roles: RolesService) {
  route(app, {
    method: 'GET',
    url: '/api/roles',
    operation: 'identity.role.list',
    auth: 'user',
    permission: 'system:role:list',
    schema: { tags, summary: 'List roles of my tenant', querystring: RoleListQuery, response: PageOf(RoleView) },
    handler: async (req) => {
      const { page, pageSize, ...filter } = req.query;
      return roles.list(req.scope, { page, pageSize }, filter);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/roles/:id',
    operation: 'identity.role.get',
    auth: 'user',
    permission: 'system:role:list',
    schema: { tags, summary: 'A role with its menu ids', params: IdParams, response: RoleDetail },
    handler: async (req) => roles.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/roles',
    operation: 'identity.role.create',
    auth: 'user',
    permission: 'system:role:create',
    status: 201,
    schema: { tags, summary: 'Create a role', body: RoleCreateBody, response: RoleDetail },
    handler: async (req) => roles.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/roles/:id',
    operation: 'identity.role.update',
    auth: 'user',
    permission: 'system:role:update',
    schema: {
      tags,
      summary: 'Change a role; permissions / menuIds replace the whole set; holders are affected at once',
      params: IdParams,
      body: RoleUpdateBody,
      response: RoleDetail,
    },
    handler: async (req) => roles.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/roles/:id',
    operation: 'identity.role.delete',
    auth: 'user',
    permission: 'system:role:delete',
    schema: { tags, summary: 'Delete a role; its holders lose it', params: IdParams, response: BatchResult },
    handler: async (req) => roles.remove(req.scope, req.params.id),
  });
}
