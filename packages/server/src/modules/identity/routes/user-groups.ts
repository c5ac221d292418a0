import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { Id, IdParams, Ok, PageOf, PageQuery, Timestamp } from '../../../platform/http/schemas.ts';
import type { UserGroupsService } from '../user-groups-service.ts';

const UserGroupView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  remark: Type.String(),
  memberCount: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const fields = {
  name: Type.String({ minLength: 1, maxLength: 64 }),
  remark: Type.String({ maxLength: 500 }),
};
const UserGroupCreateBody = Type.Object({ name: fields.name, remark: Type.Optional(fields.remark) });
const UserGroupUpdateBody = Type.Partial(Type.Object(fields));
const UserGroupListQuery = Type.Object({
  ...PageQuery.properties,
  keyword: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'substring of the name' })),
});
const MembersBody = Type.Object({
  userIds: Type.Array(Id, {
    maxItems: 1000,
    uniqueItems: true,
    description: 'users of the caller’s tenant; replaces the members',
  }),
});
const UserBrief = Type.Object({ id: Type.Integer(), username: Type.String(), nickname: Type.String() });

export function userGroupRoutes(app: FastifyInstance, groups: UserGroupsService) {
  const tags = ['UserGroups'];

  route(app, {
    method: 'GET',
    url: '/api/user-groups',
    operation: 'identity.user_group.list',
    auth: 'user',
    permission: 'system:user-group:list',
    schema: {
      tags,
      summary: 'User groups, newest first',
      querystring: UserGroupListQuery,
      response: PageOf(UserGroupView),
    },
    handler: async (req) => groups.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/user-groups/:id',
    operation: 'identity.user_group.get',
    auth: 'user',
    permission: 'system:user-group:list',
    schema: { tags, summary: 'One user group', params: IdParams, response: UserGroupView },
    handler: async (req) => groups.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/user-groups',
    operation: 'identity.user_group.create',
    auth: 'user',
    permission: 'system:user-group:create',
    status: 201,
    schema: {
      tags,
      summary: 'Create a user group (name unique in the tenant)',
      body: UserGroupCreateBody,
      response: UserGroupView,
    },
    handler: async (req) => groups.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/user-groups/:id',
    operation: 'identity.user_group.update',
    auth: 'user',
    permission: 'system:user-group:update',
    schema: {
      tags,
      summary: 'Rename a user group or change its remark',
      params: IdParams,
      body: UserGroupUpdateBody,
      response: UserGroupView,
    },
    handler: async (req) => groups.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/user-groups/:id',
    operation: 'identity.user_group.delete',
    auth: 'user',
    permission: 'system:user-group:delete',
    schema: { tags, summary: 'Delete a user group (its members are not touched)', params: IdParams, response: Ok },
    handler: async (req) => {
      await groups.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/user-groups/:id/members',
    operation: 'identity.user_group.members',
    auth: 'user',
    permission: 'system:user-group:list',
    schema: {
      tags,
      summary: 'Members of a user group',
      params: IdParams,
      querystring: PageQuery,
      response: PageOf(UserBrief),
    },
    handler: async (req) => groups.members(req.scope, req.params.id, req.query),
  });

  route(app, {
    method: 'PUT',
    url: '/api/user-groups/:id/members',
    operation: 'identity.user_group.set_members',
    auth: 'user',
    permission: 'system:user-group:update',
    schema: {
      tags,
      summary: 'Replace the members of a user group',
      params: IdParams,
      body: MembersBody,
      response: Type.Object({ userIds: Type.Array(Type.Integer()) }),
    },
    handler: async (req) => groups.replaceMembers(req.scope, req.params.id, req.body.userIds),
  });
}
