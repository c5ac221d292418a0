import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import type { ActivityFeedService } from './feed-service.ts';
import { ActivityFeed, ActivityQuery } from './schemas.ts';

/** `GET /api/drive/nodes/{id}/activities`: a node's (or a folder's subtree's) history. */
export function activityRoutes(app: FastifyInstance, feed: ActivityFeedService) {
  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/:id/activities',
    operation: 'drive.activity.list',
    auth: 'user',
    feature: 'drive',
    permission: 'drive:node:view',
    schema: {
      tags: ['DrivePermissions'],
      summary: "A node's activities, newest first",
      description:
        'Any role on the node may read it. Page back with `before` (the `nextBefore` of the previous page). `subtree=true` on a folder adds the activities of the nodes inside it that you can see (their position now).',
      params: IdParams,
      querystring: ActivityQuery,
      response: ActivityFeed,
    },
    handler: async (req) => feed.list(req.scope, req.params.id, req.query),
  });
}
