import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { BatchResult, IdParams } from '../../../platform/http/schemas.ts';
import type { MenusService } from '../menus-service.ts';
import { MenuCreateBody, MenuTree, MenuUpdateBody, MenuView } from '../schemas.ts';

const tags = ['Menus'];
const platformOnly = 'Platform users at platform scope only.';

export function menusRoutes(app: FastifyInstance, menus: MenusService) {
  route(app, {
    method: 'GET',
    url: '/api/menus',
    operation: 'identity.menu.tree',
    auth: 'user',
    permission: 'system:menu:list',
    schema: {
      tags,
      summary: 'The whole menu tree (a tenant caller sees the nodes tenants may hold)',
      response: Type.Array(MenuTree),
    },
    handler: async (req) => menus.tree(req.scope),
  });

  route(app, {
    method: 'GET',
    url: '/api/menus/:id',
    operation: 'identity.menu.get',
    auth: 'user',
    permission: 'system:menu:list',
    schema: { tags, summary: 'One menu node', params: IdParams, response: MenuView },
    handler: async (req) => menus.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/menus',
    operation: 'identity.menu.create',
    auth: 'user',
    permission: 'platform:menu:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a menu node',
      description: platformOnly,
      body: MenuCreateBody,
      response: MenuView,
    },
    handler: async (req) => menus.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/menus/:id',
    operation: 'identity.menu.update',
    auth: 'user',
    permission: 'platform:menu:update',
    schema: {
      tags,
      summary: 'Change a menu node',
      description: platformOnly,
      params: IdParams,
      body: MenuUpdateBody,
      response: MenuView,
    },
    handler: async (req) => menus.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/menus/:id',
    operation: 'identity.menu.delete',
    auth: 'user',
    permission: 'platform:menu:delete',
    schema: {
      tags,
      summary: 'Delete a menu node without children',
      description: platformOnly,
      params: IdParams,
      response: BatchResult,
    },
    handler: async (req) => menus.remove(req.scope, req.params.id),
  });
}
