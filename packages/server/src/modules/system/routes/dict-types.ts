import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { DictService } from '../dict-service.ts';
import { DictCodeParams, DictOption, DictType, DictTypeCreate, DictTypeQuery, DictTypeUpdate } from '../schemas.ts';

const tags = ['Dictionaries'];

export function dictTypeRoutes(app: FastifyInstance, dicts: DictService) {
  route(app, {
    method: 'GET',
    url: '/api/dict-types',
    operation: 'system.dict_type.list',
    auth: 'user',
    permission: 'system:dict:list',
    schema: { tags, summary: 'List dictionary types', querystring: DictTypeQuery, response: PageOf(DictType) },
    handler: async (req) => dicts.listTypes(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/dict-types/:id',
    operation: 'system.dict_type.get',
    auth: 'user',
    permission: 'system:dict:list',
    schema: { tags, summary: 'Get a dictionary type', params: IdParams, response: DictType },
    handler: async (req) => dicts.getType(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/dict-types/:code/items',
    operation: 'system.dict_type.options',
    auth: 'user',
    schema: {
      tags,
      summary: 'Active items of a type by code, for forms (any signed-in user)',
      description: "The tenant's own active type wins; the platform's type of the same code is the fallback.",
      params: DictCodeParams,
      response: Type.Array(DictOption),
    },
    handler: async (req) => dicts.optionsByCode(req.scope, req.params.code),
  });

  route(app, {
    method: 'POST',
    url: '/api/dict-types',
    operation: 'system.dict_type.create',
    auth: 'user',
    permission: 'system:dict:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a dictionary type (code unique per tenant)',
      body: DictTypeCreate,
      response: DictType,
    },
    handler: async (req) => dicts.createType(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/dict-types/:id',
    operation: 'system.dict_type.update',
    auth: 'user',
    permission: 'system:dict:update',
    schema: { tags, summary: 'Update a dictionary type', params: IdParams, body: DictTypeUpdate, response: DictType },
    handler: async (req) => dicts.updateType(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/dict-types/:id',
    operation: 'system.dict_type.delete',
    auth: 'user',
    permission: 'system:dict:delete',
    schema: { tags, summary: 'Delete a dictionary type and its items', params: IdParams, response: Ok },
    handler: async (req) => {
      await dicts.deleteType(req.scope, req.params.id);
    },
  });
}
