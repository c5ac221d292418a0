import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { BatchIds, BatchResult, BatchStatus, IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import {
  EffectivePermissions,
  ResetPasswordBody,
  UserCreateBody,
  UserDetail,
  UserListQuery,
  UserUpdateBody,
  UserView,
} from '../schemas.ts';
import type { UserPermissionsService } from '../user-permissions-service.ts';
import type { UsersService } from '../users-service.ts';

const tags = ['Users'];

export function usersRoutes(app: FastifyInstance, users: UsersService, permissions: UserPermissionsService) {
  route(app, {
    method: 'GET',
    url: '/api/users',
    operation: 'identity.user.list',
    auth: 'user',
    permission: 'system:user:list',
    schema: { tags, summary: 'List users of my tenant', querystring: UserListQuery, response: PageOf(UserView) },
    handler: async (req) => {
      const { page, pageSize, ...filter } = req.query;
      return users.list(req.scope, { page, pageSize }, filter);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/users/:id',
    operation: 'identity.user.get',
    auth: 'user',
    permission: 'system:user:list',
    schema: { tags, summary: 'A user with role, position and group ids', params: IdParams, response: UserDetail },
    handler: async (req) => users.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/users',
    operation: 'identity.user.create',
    auth: 'user',
    permission: 'system:user:create',
    status: 201,
    schema: { tags, summary: 'Create a user', body: UserCreateBody, response: UserDetail },
    handler: async (req) => users.create(req.scope, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/users/batch',
    operation: 'identity.user.batch_delete',
    auth: 'user',
    permission: 'system:user:delete',
    errors: [404], // an id of the batch outside the tenant
    schema: { tags, summary: 'Delete several users (all or nothing)', body: BatchIds, response: BatchResult },
    handler: async (req) => users.removeMany(req.scope, req.body.ids),
  });

  route(app, {
    method: 'PUT',
    url: '/api/users/batch-status',
    operation: 'identity.user.batch_status',
    auth: 'user',
    permission: 'system:user:update',
    errors: [404], // an id of the batch outside the tenant
    schema: {
      tags,
      summary: 'Enable or disable several users (all or nothing)',
      body: BatchStatus,
      response: BatchResult,
    },
    handler: async (req) => users.setStatusMany(req.scope, req.body.ids, req.body.status),
  });

  route(app, {
    method: 'PUT',
    url: '/api/users/:id',
    operation: 'identity.user.update',
    auth: 'user',
    permission: 'system:user:update',
    schema: {
      tags,
      summary: 'Change a user; roleIds / positionIds replace the whole set',
      params: IdParams,
      body: UserUpdateBody,
      response: UserDetail,
    },
    handler: async (req) => users.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/users/:id',
    operation: 'identity.user.delete',
    auth: 'user',
    permission: 'system:user:delete',
    schema: { tags, summary: 'Delete a user', params: IdParams, response: BatchResult },
    handler: async (req) => users.remove(req.scope, req.params.id),
  });

  route(app, {
    method: 'PUT',
    url: '/api/users/:id/reset-password',
    operation: 'identity.user.reset_password',
    auth: 'user',
    permission: 'system:user:reset-password',
    schema: {
      tags,
      summary: 'Set a new password for a user; every session of that user ends',
      params: IdParams,
      body: ResetPasswordBody,
      response: Ok,
    },
    handler: async (req) => users.resetPassword(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/users/:id/unlock',
    operation: 'identity.user.unlock',
    auth: 'user',
    permission: 'system:user:unlock',
    schema: { tags, summary: 'Remove the sign-in lock of a user', params: IdParams, response: UserView },
    handler: async (req) => users.unlock(req.scope, req.params.id),
  });

  route(app, {
    method: 'GET',
    url: '/api/users/:id/permissions',
    operation: 'identity.user.permissions',
    auth: 'user',
    permission: 'system:user:list',
    schema: {
      tags,
      summary: 'What a user may do: each permission code with the roles that grant it, and their navigation',
      description:
        'Codes grouped as GET /api/permissions groups them. A disabled role is listed as not granting; ' +
        'a super administrator is granted every code.',
      params: IdParams,
      response: EffectivePermissions,
    },
    handler: async (req) => permissions.of(req.scope, req.params.id),
  });
}
