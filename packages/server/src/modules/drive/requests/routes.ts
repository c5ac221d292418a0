import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import type { RequestsService } from './requests-service.ts';
import {
  AccessRequestTarget,
  AccessRequestView,
  RequestApproveBody,
  RequestCreateBody,
  RequestRejectBody,
} from './schemas.ts';

/** `/api/drive/access-requests`: ask a node's managers for a role; they approve (granting it) or reject. */
export function requestRoutes(app: FastifyInstance, requests: RequestsService) {
  const tags = ['DriveAccessRequests'];
  const common = { auth: 'user', feature: 'drive' } as const;

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/access-requests',
    operation: 'drive.access_request.create',
    permission: 'drive:node:view',
    errors: [404], // the node of the body
    status: 201,
    schema: {
      tags,
      summary: 'Ask for a role on a node',
      description:
        "Any node of the tenant may be asked for, even one you cannot see (someone sent you a link); a node of no tenant of yours is 404. Asking for a role you already hold (or less) is 409 drive.access_already_granted; a second pending request for the same node is 409 drive.access_request_pending. The node's managers (the space's managers and holders of a manager grant on it) are notified (drive.access.requested).",
      body: RequestCreateBody,
      response: AccessRequestView,
    },
    handler: async (req) => requests.create(req.scope, req.body),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/access-requests/pending',
    operation: 'drive.access_request.pending',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'Pending requests on nodes I manage, newest first',
      querystring: PageQuery,
      response: PageOf(AccessRequestView),
    },
    handler: async (req) => requests.pending(req.scope, req.query),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/access-requests/mine',
    operation: 'drive.access_request.mine',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'My own requests, any status, newest first',
      querystring: PageQuery,
      response: PageOf(AccessRequestView),
    },
    handler: async (req) => requests.mine(req.scope, req.query),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/access-requests/:id',
    operation: 'drive.access_request.get',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'A request with its node, space and requester, and your own role on the node',
      description: 'Visible to the requester and to the managers of the node; 404 to anyone else.',
      params: IdParams,
      response: AccessRequestTarget,
    },
    handler: async (req) => requests.get(req.scope, req.params.id),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/access-requests/:id/approve',
    operation: 'drive.access_request.approve',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Approve a pending request (manager of the node), granting the role',
      description:
        'Gives the requester a direct grant on the node with `role` (default: the role asked for) and `expiresAt`, in the same transaction; an existing direct grant of theirs is raised to the higher role and takes the expiry given. A request no longer pending is 409 drive.access_request_decided (of two approvers at once, one wins). The requester is notified (drive.access.resolved). A node you cannot see is 404; one you see below manager 403 drive.role_too_low.',
      params: IdParams,
      body: RequestApproveBody,
      response: AccessRequestView,
    },
    handler: async (req) => requests.approve(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/access-requests/:id/reject',
    operation: 'drive.access_request.reject',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Reject a pending request (manager of the node)',
      description: 'The requester is notified (drive.access.resolved).',
      params: IdParams,
      body: RequestRejectBody,
      response: AccessRequestView,
    },
    handler: async (req) => requests.reject(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/access-requests/:id/withdraw',
    operation: 'drive.access_request.withdraw',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'Withdraw my pending request',
      description:
        'Only the requester (a manager of the node gets 403 drive.not_requester; anyone else 404); a request no longer pending is 409 drive.access_request_decided.',
      params: IdParams,
      response: AccessRequestView,
    },
    handler: async (req) => requests.withdraw(req.scope, req.params.id),
  });
}
