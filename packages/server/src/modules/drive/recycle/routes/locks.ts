import type { FastifyInstance } from 'fastify';
import { route } from '../../../../platform/http/route.ts';
import { IdParams, Ok } from '../../../../platform/http/schemas.ts';
import { lockedNode } from '../../nodes/locks.ts';
import type { LocksService } from '../locks-service.ts';
import { LockBody, LockView } from '../schemas.ts';

const tags = ['DriveLocks'];

/** Check-out locks of files (spec §3.5). */
export function lockRoutes(app: FastifyInstance, locks: LocksService) {
  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/:id/lock',
    operation: 'drive.lock.get',
    auth: 'user',
    permission: 'drive:node:view',
    feature: 'drive',
    schema: { tags, summary: "A node's lock: who holds it and until when", params: IdParams, response: LockView },
    handler: async (req) => locks.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/:id/lock',
    operation: 'drive.lock.take',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Check a file out (editor): take or renew your lock for `minutes` (default 60)',
      description:
        "Another user's live lock is a 423 drive.node_locked naming them; a folder is a 400 drive.not_a_file.",
      params: IdParams,
      body: LockBody,
      response: LockView,
    },
    handler: async (req) => locks.take(req.scope, req.params.id, req.body.minutes),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/drive/nodes/:id/lock',
    operation: 'drive.lock.release',
    auth: 'user',
    permission: 'drive:node:edit',
    feature: 'drive',
    schema: {
      tags,
      summary: "Release your lock, or break another user's as a manager (403 drive.not_lock_holder otherwise)",
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await locks.release(req.scope, req.params.id);
    },
  });
}
