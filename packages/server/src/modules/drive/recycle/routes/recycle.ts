import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { PageOf } from '../../../../platform/http/schemas.ts';
import { lockedNode } from '../../nodes/locks.ts';
import type { RecycleService } from '../recycle-service.ts';
import {
  DeleteResult,
  EmptyQuery,
  EmptyResult,
  NodeIdsBody,
  PurgeResult,
  RecycleItemView,
  RecycleQuery,
  RestoreResult,
} from '../schemas.ts';

const tags = ['DriveRecycleBin'];

/** Delete to the recycle bin, and the bin: list, restore, purge, empty (spec §3.5, §4.3). */
export function recycleRoutes(app: FastifyInstance, recycle: RecycleService) {
  route(app, {
    method: 'DELETE',
    url: '/api/drive/nodes/batch',
    operation: 'drive.node.delete',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    errors: [404], // the nodes of the body
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Move nodes to the recycle bin (editor), all or nothing',
      description:
        'A folder goes with its whole live subtree. Refused with 409 drive.legal_hold when a legal hold is on a node, ' +
        'an ancestor or a descendant, and with 423 drive.node_locked while another user holds a lock in the subtree.',
      body: NodeIdsBody,
      response: DeleteResult,
    },
    handler: async (req) => recycle.remove(req.scope, req.body.ids),
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/recycle',
    operation: 'drive.recycle.list',
    auth: 'user',
    permission: 'drive:node:view',
    feature: 'drive',
    errors: [404], // the space of the query
    schema: {
      tags,
      summary: "A space's recycle bin: the deleted items you may browse, newest first",
      querystring: RecycleQuery,
      response: PageOf(RecycleItemView),
    },
    handler: async (req) => recycle.list(req.scope, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/recycle/restore',
    operation: 'drive.recycle.restore',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    errors: [404], // the nodes of the body
    schema: {
      tags,
      summary: 'Restore recycle-bin items (editor) into their folder, or the space root when it is gone',
      description: 'A live item of the same name in the target folder makes the restored one "name (1).ext".',
      body: NodeIdsBody,
      response: RestoreResult,
    },
    handler: async (req) => recycle.restore(req.scope, req.body.ids),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/recycle/purge',
    operation: 'drive.recycle.purge',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    errors: [404], // the nodes of the body
    schema: {
      tags,
      summary: 'Delete recycle-bin items for good (manager); refused while a legal hold reaches them',
      body: NodeIdsBody,
      response: PurgeResult,
    },
    handler: async (req) => recycle.purge(req.scope, req.body.ids),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/drive/nodes/recycle',
    operation: 'drive.recycle.empty',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    errors: [404], // the space of the body
    schema: {
      tags,
      summary: "Empty a space's recycle bin (manager); items under a legal hold are kept",
      querystring: EmptyQuery,
      response: EmptyResult,
    },
    handler: async (req) => recycle.empty(req.scope, req.query.spaceId),
  });
}
