import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, PageOf } from '../../../../platform/http/schemas.ts';
import type { HoldsService } from '../holds-service.ts';
import { HoldCreateBody, HoldListQuery, HoldReleaseBody, HoldView } from '../schemas.ts';

const tags = ['DriveLegalHolds'];
const permission = 'drive:admin:space:edit';

/** Legal holds, for drive administrators (spec §2.2): place, release, list. */
export function holdRoutes(app: FastifyInstance, holds: HoldsService) {
  route(app, {
    method: 'GET',
    url: '/api/drive/admin/legal-holds',
    operation: 'drive.legal_hold.list',
    auth: 'user',
    permission,
    feature: 'drive',
    schema: { tags, summary: 'Legal holds, newest first', querystring: HoldListQuery, response: PageOf(HoldView) },
    handler: async (req) => holds.list(req.scope, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/admin/legal-holds',
    operation: 'drive.legal_hold.place',
    auth: 'user',
    permission,
    feature: 'drive',
    errors: [404], // the node of the body
    status: 201,
    schema: {
      tags,
      summary: 'Place a legal hold on a node: it, its ancestors and its subtree can no longer be deleted or purged',
      description: 'One active hold per node (409 drive.legal_hold_exists). The space managers are notified.',
      body: HoldCreateBody,
      response: HoldView,
    },
    handler: async (req) => holds.place(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/admin/legal-holds/:id/release',
    operation: 'drive.legal_hold.release',
    auth: 'user',
    permission,
    feature: 'drive',
    schema: {
      tags,
      summary: 'Release a legal hold with a note (409 drive.legal_hold_released when already released)',
      params: IdParams,
      body: HoldReleaseBody,
      response: HoldView,
    },
    handler: async (req) => holds.release(req.scope, req.params.id, req.body),
  });
}
