import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../platform/http/schemas.ts';
import { TenantCreateBody, TenantCreated, TenantListQuery, TenantUpdateBody, TenantView } from '../schemas.ts';
import type { TenantsService } from '../tenants-service.ts';

const tags = ['Tenants'];
const platformOnly = 'Platform users at platform scope only. Tenants are disabled, never deleted.';

export function tenantsRoutes(app: FastifyInstance, tenants: TenantsService) {
  route(app, {
    method: 'GET',
    url: '/api/tenants',
    operation: 'identity.tenant.list',
    auth: 'user',
    permission: 'platform:tenant:list',
    schema: {
      tags,
      summary: 'List tenants',
      description: platformOnly,
      querystring: TenantListQuery,
      response: PageOf(TenantView),
    },
    handler: async (req) => {
      const { page, pageSize, ...filter } = req.query;
      return tenants.list(req.scope, { page, pageSize }, filter);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/tenants/:id',
    operation: 'identity.tenant.get',
    auth: 'user',
    permission: 'platform:tenant:list',
    schema: { tags, summary: 'One tenant', description: platformOnly, params: IdParams, response: TenantView },
    handler: async (req) => tenants.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/tenants',
    operation: 'identity.tenant.create',
    auth: 'user',
    permission: 'platform:tenant:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a tenant with its administrator (role tenant-admin: every tenant permission and menu)',
      description: platformOnly,
      body: TenantCreateBody,
      response: TenantCreated,
    },
    handler: async (req) => tenants.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/tenants/:id',
    operation: 'identity.tenant.update',
    auth: 'user',
    permission: 'platform:tenant:update',
    schema: {
      tags,
      summary: 'Change a tenant; disabling it ends every session of its users',
      description: platformOnly,
      params: IdParams,
      body: TenantUpdateBody,
      response: TenantView,
    },
    handler: async (req) => tenants.update(req.scope, req.params.id, req.body),
  });
}
