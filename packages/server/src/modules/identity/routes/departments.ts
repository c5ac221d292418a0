import type { FastifyInstance } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { Id, IdParams, Ok, PageOf, PageQuery, Status, Timestamp } from '../../../platform/http/schemas.ts';
import type { DepartmentsService } from '../departments-service.ts';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/**
 * `T | null` for request fields as one schema (`type: [T, 'null']`): with Ajv's scalar coercion a
 * union would quietly read 0 as null, so `parentId: 0` would move to the root instead of a 400.
 */
const OrNull = <T extends TSchema & { type: string }>(t: T) =>
  Type.Unsafe<Static<T> | null>({ ...t, type: [t.type, 'null'] });

const departmentProps = {
  id: Type.Integer(),
  parentId: Nullable(Type.Integer()),
  ancestorIds: Type.Array(Type.Integer(), { description: 'every ancestor, root first' }),
  name: Type.String(),
  headUserId: Nullable(Type.Integer()),
  sort: Type.Integer(),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
const DepartmentView = Type.Object(departmentProps);
const DepartmentTree = Type.Cyclic(
  { DepartmentNode: Type.Object({ ...departmentProps, children: Type.Array(Type.Ref('DepartmentNode')) }) },
  'DepartmentNode',
);
const fields = {
  name: Type.String({ minLength: 1, maxLength: 64 }),
  parentId: OrNull(Id),
  headUserId: OrNull(Id),
  sort: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  status: Status,
};
const DepartmentCreateBody = Type.Object({
  name: fields.name,
  parentId: Type.Optional(fields.parentId),
  headUserId: Type.Optional(fields.headUserId),
  sort: Type.Optional(fields.sort),
  status: Type.Optional(fields.status),
});
/** Partial: only the fields sent change; a new `parentId` moves the whole subtree. */
const DepartmentUpdateBody = Type.Partial(Type.Object(fields));
const DepartmentUsersQuery = Type.Object({
  ...PageQuery.properties,
  includeSubDepartments: Type.Optional(
    Type.Boolean({ default: false, description: 'also users of every sub-department' }),
  ),
});
const UserBrief = Type.Object({ id: Type.Integer(), username: Type.String(), nickname: Type.String() });

export function departmentRoutes(app: FastifyInstance, departments: DepartmentsService) {
  const tags = ['Departments'];

  route(app, {
    method: 'GET',
    url: '/api/departments',
    operation: 'identity.department.tree',
    auth: 'user',
    permission: 'system:dept:list',
    schema: { tags, summary: "The caller's tenant's department tree", response: Type.Array(DepartmentTree) },
    handler: async (req) => departments.tree(req.scope),
  });

  route(app, {
    method: 'GET',
    url: '/api/departments/:id',
    operation: 'identity.department.get',
    auth: 'user',
    permission: 'system:dept:list',
    schema: { tags, summary: 'One department', params: IdParams, response: DepartmentView },
    handler: async (req) => departments.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/departments/:id/users',
    operation: 'identity.department.users',
    auth: 'user',
    permission: 'system:dept:list',
    schema: {
      tags,
      summary: 'Users of a department, or of the department and its sub-departments',
      params: IdParams,
      querystring: DepartmentUsersQuery,
      response: PageOf(UserBrief),
    },
    handler: async (req) => departments.users(req.scope, req.params.id, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/departments',
    operation: 'identity.department.create',
    auth: 'user',
    permission: 'system:dept:create',
    status: 201,
    schema: { tags, summary: 'Create a department', body: DepartmentCreateBody, response: DepartmentView },
    handler: async (req) => departments.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/departments/:id',
    operation: 'identity.department.update',
    auth: 'user',
    permission: 'system:dept:update',
    schema: {
      tags,
      summary: 'Change a department; a new parentId moves its whole subtree',
      params: IdParams,
      body: DepartmentUpdateBody,
      response: DepartmentView,
    },
    handler: async (req) => departments.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/departments/:id',
    operation: 'identity.department.delete',
    auth: 'user',
    permission: 'system:dept:delete',
    schema: { tags, summary: 'Delete a department without sub-departments or users', params: IdParams, response: Ok },
    handler: async (req) => {
      await departments.remove(req.scope, req.params.id);
    },
  });
}
