import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { DictService } from '../dict-service.ts';
import { DictItem, DictItemCreate, DictItemQuery, DictItemUpdate } from '../schemas.ts';

const tags = ['Dictionaries'];

export function dictItemRoutes(app: FastifyInstance, dicts: DictService) {
  route(app, {
    method: 'GET',
    url: '/api/dict-items',
    operation: 'system.dict_item.list',
    auth: 'user',
    permission: 'system:dict:list',
    schema: { tags, summary: 'List dictionary items', querystring: DictItemQuery, response: PageOf(DictItem) },
    handler: async (req) => dicts.listItems(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/dict-items/:id',
    operation: 'system.dict_item.get',
    auth: 'user',
    permission: 'system:dict:list',
    schema: { tags, summary: 'Get a dictionary item', params: IdParams, response: DictItem },
    handler: async (req) => dicts.getItem(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/dict-items',
    operation: 'system.dict_item.create',
    auth: 'user',
    permission: 'system:dict:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a dictionary item (value unique within its type)',
      body: DictItemCreate,
      response: DictItem,
    },
    handler: async (req) => dicts.createItem(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/dict-items/:id',
    operation: 'system.dict_item.update',
    auth: 'user',
    permission: 'system:dict:update',
    schema: { tags, summary: 'Update a dictionary item', params: IdParams, body: DictItemUpdate, response: DictItem },
    handler: async (req) => dicts.updateItem(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/dict-items/:id',
    operation: 'system.dict_item.delete',
    auth: 'user',
    permission: 'system:dict:delete',
    schema: { tags, summary: 'Delete a dictionary item', params: IdParams, response: Ok },
    handler: async (req) => {
      await dicts.deleteItem(req.scope, req.params.id);
    },
  });
}
