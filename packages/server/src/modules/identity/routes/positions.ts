import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import {
  BatchIds,
  BatchResult,
  IdParams,
  Ok,
  PageOf,
  PageQuery,
  Status,
  Timestamp,
} from '../../../platform/http/schemas.ts';
import type { PositionsService } from '../positions-service.ts';

const PositionView = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  sort: Type.Integer(),
  status: Status,
  remark: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const fields = {
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
  name: Type.String({ minLength: 1, maxLength: 64 }),
  sort: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  status: Status,
  remark: Type.String({ maxLength: 500 }),
};
const PositionCreateBody = Type.Object({
  code: fields.code,
  name: fields.name,
  sort: Type.Optional(fields.sort),
  status: Type.Optional(fields.status),
  remark: Type.Optional(fields.remark),
});
const PositionUpdateBody = Type.Partial(Type.Object(fields));
const PositionListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'substring of code or name' })),
  status: Type.Optional(Status),
});

export function positionRoutes(app: FastifyInstance, positions: PositionsService) {
  const tags = ['Positions'];

  route(app, {
    method: 'GET',
    url: '/api/positions',
    operation: 'identity.position.list',
    auth: 'user',
    permission: 'system:position:list',
    schema: {
      tags,
      summary: 'Positions, newest first',
      querystring: PositionListQuery,
      response: PageOf(PositionView),
    },
    handler: async (req) => positions.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/positions/:id',
    operation: 'identity.position.get',
    auth: 'user',
    permission: 'system:position:list',
    schema: { tags, summary: 'One position', params: IdParams, response: PositionView },
    handler: async (req) => positions.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/positions',
    operation: 'identity.position.create',
    auth: 'user',
    permission: 'system:position:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a position (code unique in the tenant)',
      body: PositionCreateBody,
      response: PositionView,
    },
    handler: async (req) => positions.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/positions/:id',
    operation: 'identity.position.update',
    auth: 'user',
    permission: 'system:position:update',
    schema: {
      tags,
      summary: 'Change a position; only the fields sent change',
      params: IdParams,
      body: PositionUpdateBody,
      response: PositionView,
    },
    handler: async (req) => positions.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/positions/batch',
    operation: 'identity.position.batch_delete',
    auth: 'user',
    permission: 'system:position:delete',
    errors: [404], // an id of the batch outside the tenant
    schema: { tags, summary: 'Delete several positions, all or nothing', body: BatchIds, response: BatchResult },
    handler: async (req) => positions.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/positions/:id',
    operation: 'identity.position.delete',
    auth: 'user',
    permission: 'system:position:delete',
    schema: { tags, summary: 'Delete a position (users lose it)', params: IdParams, response: Ok },
    handler: async (req) => {
      await positions.remove(req.scope, req.params.id);
    },
  });
}
