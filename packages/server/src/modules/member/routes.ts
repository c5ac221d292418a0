import type { FastifyInstance } from 'fastify';
import { route } from '../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../platform/http/schemas.ts';
import { MemberCreateBody, MemberListQuery, MemberUpdateBody, MemberView } from './schemas.ts';
import type { MemberService } from './service.ts';

/** `/api/members`: the console's member administration. */
export function memberRoutes(app: FastifyInstance, members: MemberService) {
  const tags = ['Members'];

  route(app, {
    method: 'GET',
    url: '/api/members',
    operation: 'member.member.list',
    auth: 'user',
    permission: 'member:member:list',
    schema: { tags, summary: 'Members, newest first', querystring: MemberListQuery, response: PageOf(MemberView) },
    handler: async (req) => members.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/members/:id',
    operation: 'member.member.get',
    auth: 'user',
    permission: 'member:member:list',
    schema: { tags, summary: 'One member', params: IdParams, response: MemberView },
    handler: async (req) => members.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/members',
    operation: 'member.member.create',
    auth: 'user',
    permission: 'member:member:create',
    status: 201,
    schema: { tags, summary: 'Create a member', body: MemberCreateBody, response: MemberView },
    handler: async (req) => members.create(req.scope, req.body),
  });

  route(app, {
    method: 'PUT',
    url: '/api/members/:id',
    operation: 'member.member.update',
    auth: 'user',
    permission: 'member:member:update',
    schema: {
      tags,
      summary: 'Change a member; only the fields sent change',
      params: IdParams,
      body: MemberUpdateBody,
      response: MemberView,
    },
    handler: async (req) => members.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/members/:id',
    operation: 'member.member.delete',
    auth: 'user',
    permission: 'member:member:delete',
    schema: { tags, summary: 'Delete a member', params: IdParams, response: Ok },
    handler: async (req) => {
      await members.remove(req.scope, req.params.id);
    },
  });
}
