import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { SpaceMembersService } from './members-service.ts';
import {
  MemberCreateBody,
  MemberListQuery,
  MemberParams,
  MemberUpdateBody,
  MemberView,
  SpaceCreateBody,
  SpaceDetail,
  SpaceListQuery,
  SpaceUpdateBody,
  SpaceView,
  TransferBody,
} from './schemas.ts';
import type { SpacesService } from './spaces-service.ts';

/** `/api/drive/spaces`: my spaces, space CRUD, archive, members and ownership transfer (spec §4.3). */
export function spaceRoutes(app: FastifyInstance, spaces: SpacesService, members: SpaceMembersService) {
  const tags = ['DriveSpaces'];
  const base = { auth: 'user', feature: 'drive' } as const;
  const canView = 'drive:space:view';
  const canEdit = 'drive:space:edit';

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/spaces',
    operation: 'drive.space.list',
    permission: canView,
    schema: {
      tags,
      summary: 'My spaces: where I hold a space role',
      description:
        'Creates the personal space on first access, and the department space when `departmentSpaceAutoCreate` is on. ' +
        'Archived spaces only with `includeArchived=true`; `all=true` (drive administrators) lists every space of the tenant.',
      querystring: SpaceListQuery,
      response: PageOf(SpaceView),
    },
    handler: async (req) => spaces.list(req.scope, req.query),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/spaces',
    operation: 'drive.space.create',
    permission: canEdit,
    status: 201,
    schema: {
      tags,
      summary: 'Create a team space (owned by me) or, as a drive administrator, a department space',
      description:
        'A department space needs `departmentId` (one space per department: 409 drive.department_space_exists). ' +
        '`quotaBytes` is for drive administrators only (403 drive.admin_required).',
      body: SpaceCreateBody,
      response: SpaceView,
    },
    handler: async (req) => spaces.create(req.scope, req.body),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/spaces/:id',
    operation: 'drive.space.get',
    permission: canView,
    schema: { tags, summary: 'A space with its usage and my role', params: IdParams, response: SpaceDetail },
    handler: async (req) => spaces.get(req.scope, req.params.id),
  });

  route(app, {
    ...base,
    method: 'PUT',
    url: '/api/drive/spaces/:id',
    operation: 'drive.space.update',
    permission: canEdit,
    schema: {
      tags,
      summary: 'Change a space (space manager); only the fields sent change',
      description:
        '`quotaBytes` is for drive administrators only (403 drive.admin_required). An archived space refuses changes (409).',
      params: IdParams,
      body: SpaceUpdateBody,
      response: SpaceView,
    },
    handler: async (req) => spaces.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...base,
    method: 'DELETE',
    url: '/api/drive/spaces/:id',
    operation: 'drive.space.delete',
    permission: canEdit,
    schema: {
      tags,
      summary: 'Delete a team or department space with everything in it',
      description:
        'The owner of a team space or a drive administrator (department spaces: administrators only). ' +
        'Refused while any node of the space is under a legal hold (409 drive.legal_hold).',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await spaces.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/spaces/:id/archive',
    operation: 'drive.space.archive',
    permission: canEdit,
    schema: {
      tags,
      summary: 'Archive a space (space manager): read-only and hidden from the default list',
      params: IdParams,
      response: SpaceView,
    },
    handler: async (req) => spaces.archive(req.scope, req.params.id),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/spaces/:id/unarchive',
    operation: 'drive.space.unarchive',
    permission: canEdit,
    schema: { tags, summary: 'Unarchive a space (space manager)', params: IdParams, response: SpaceView },
    handler: async (req) => spaces.unarchive(req.scope, req.params.id),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/spaces/:id/transfer',
    operation: 'drive.space.transfer',
    permission: canEdit,
    schema: {
      tags,
      summary: 'Give a team space to another user (its owner or a drive administrator)',
      description: 'The previous owner stays a manager of the space through a member row.',
      params: IdParams,
      body: TransferBody,
      response: SpaceView,
    },
    handler: async (req) => spaces.transfer(req.scope, req.params.id, req.body.userId),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/spaces/:id/members',
    operation: 'drive.space_member.list',
    permission: canView,
    schema: {
      tags,
      summary: 'Members of a space, with their names',
      params: IdParams,
      querystring: MemberListQuery,
      response: PageOf(MemberView),
    },
    handler: async (req) => members.list(req.scope, req.params.id, req.query),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/spaces/:id/members',
    operation: 'drive.space_member.add',
    permission: canEdit,
    status: 201,
    schema: {
      tags,
      summary: 'Add a member (space manager)',
      description:
        'A user, a department (with its sub-departments), a role or a user group of the tenant. The users it stands for are notified (drive.space.joined).',
      params: IdParams,
      body: MemberCreateBody,
      response: MemberView,
    },
    handler: async (req) => members.add(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...base,
    method: 'PUT',
    url: '/api/drive/spaces/:id/members/:memberId',
    operation: 'drive.space_member.update',
    permission: canEdit,
    schema: {
      tags,
      summary: "Change a member's role (space manager)",
      params: MemberParams,
      body: MemberUpdateBody,
      response: MemberView,
    },
    handler: async (req) => members.update(req.scope, req.params.id, req.params.memberId, req.body.role),
  });

  route(app, {
    ...base,
    method: 'DELETE',
    url: '/api/drive/spaces/:id/members/:memberId',
    operation: 'drive.space_member.remove',
    permission: canEdit,
    schema: { tags, summary: 'Remove a member (space manager)', params: MemberParams, response: Ok },
    handler: async (req) => {
      await members.remove(req.scope, req.params.id, req.params.memberId);
    },
  });
}
