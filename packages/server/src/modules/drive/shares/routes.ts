import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import { EXTERNAL_SHARE_MAX_DAYS_DEFAULT } from '../settings.ts';
import {
  ShareLinkCreateBody,
  ShareLinkSpaceQuery,
  ShareLinkUpdateBody,
  ShareLinkView,
  ShareLinkWithToken,
} from './schemas.ts';
import type { SharesService } from './shares-service.ts';

/** `/api/drive/share-links`: token links to a node for people outside the company, managed by their creators and the node's managers. */
export function shareLinkRoutes(app: FastifyInstance, shares: SharesService) {
  const tags = ['DriveShareLinks'];
  const common = { auth: 'user', feature: 'drive' } as const;

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/share-links',
    operation: 'drive.share_link.create',
    permission: 'drive:node:edit',
    errors: [404], // the node of the body
    status: 201,
    schema: {
      tags,
      summary: 'Create a share link to a node, or a collection link to a folder (editor of the node)',
      description:
        'The answer holds the token and the absolute public URL. 403 drive.external_share_disabled when the tenant setting externalShareEnabled or the space switch is off; ' +
        `while the drive setting externalShareMaxDays is above 0 (default ${EXTERNAL_SHARE_MAX_DAYS_DEFAULT}) expiresAt is required and at most that many days ahead (400 request.validation_failed naming expiresAt and the setting), optional when it is 0; ` +
        'with externalShareRequirePassword a password is required. allowedIps entries are IPv4/IPv6 addresses or CIDR ranges. ' +
        "kind 'collect' makes a collection link on a folder (400 drive.not_a_folder otherwise) with the policy in collect (maxFileSizeMb at most the tenant's collectMaxFileSizeMb, its default); capabilities, maxDownloadCount and watermark are refused for it (400 naming the field).",
      body: ShareLinkCreateBody,
      response: ShareLinkWithToken,
    },
    handler: async (req) => shares.create(req.scope, req.body),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/share-links/mine',
    operation: 'drive.share_link.mine',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'My share links, newest first, with their counters and state',
      querystring: PageQuery,
      response: PageOf(ShareLinkView),
    },
    handler: async (req) => shares.mine(req.scope, req.query),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/share-links',
    operation: 'drive.share_link.list',
    permission: 'drive:node:view',
    errors: [404], // the space of the query
    schema: {
      tags,
      summary: 'Every share link of a space (space manager), newest first',
      description: 'A space you cannot see is 404; one you see below manager 403 drive.role_too_low.',
      querystring: ShareLinkSpaceQuery,
      response: PageOf(ShareLinkView),
    },
    handler: async (req) => {
      const { spaceId, ...page } = req.query;
      return shares.ofSpace(req.scope, spaceId, page);
    },
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/share-links/:id',
    operation: 'drive.share_link.get',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'A share link with its token and URL (its creator or a manager of the node)',
      description: 'Anyone else gets 404 drive.share_link_not_found.',
      params: IdParams,
      response: ShareLinkWithToken,
    },
    handler: async (req) => shares.get(req.scope, req.params.id),
  });

  route(app, {
    ...common,
    method: 'PUT',
    url: '/api/drive/share-links/:id',
    operation: 'drive.share_link.update',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Change a share link (its creator or a manager of the node)',
      description:
        'Only the fields given change (in collect too); the creation rules apply to them. password null removes it (refused when externalShareRequirePassword); a password change or removal ends the sessions opened with the link. A revoked link is 409 drive.share_link_revoked.',
      params: IdParams,
      body: ShareLinkUpdateBody,
      response: ShareLinkWithToken,
    },
    handler: async (req) => shares.update(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/share-links/:id/revoke',
    operation: 'drive.share_link.revoke',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Revoke a share link for good (its creator or a manager of the node); idempotent',
      params: IdParams,
      response: ShareLinkView,
    },
    handler: async (req) => shares.revoke(req.scope, req.params.id),
  });
}
