import type { FastifyInstance } from 'fastify';
import { envelopeErrors, envelopeSuccess, type ReplyFormat } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { Envelope, IdParams, Ok, PageOf, PageQuery } from '../../../platform/http/schemas.ts';
import { type CopyService, MAX_COPY_NODES } from './copy-service.ts';
import { lockedNode } from './locks.ts';
import type { MoveService } from './move-service.ts';
import type { NodesService } from './nodes-service.ts';
import {
  CopyBody,
  CopyResult,
  FolderBody,
  FolderResult,
  MoveBody,
  MoveResult,
  NodeDetail,
  NodeListQuery,
  NodeView,
  RecentView,
  RenameBody,
  SharedView,
  StarredView,
} from './schemas.ts';

/** `/api/drive/nodes`: the tree (content, one node, folders, rename, move, copy) and the personal views. */
export type NodeServices = { nodes: NodesService; moves: MoveService; copies: CopyService };

const tags = ['DriveNodes'];
const base = { auth: 'user', feature: 'drive' } as const;
const VIEW = 'drive:node:view';
const EDIT = 'drive:node:edit';

/** 201 when the folder was created; 200 when conflict skip found it already there. */
const createdOrFound: ReplyFormat = {
  success: {
    schema: envelopeSuccess.schema,
    body: (data, reply) => {
      if ((data as { skipped?: boolean }).skipped) reply.code(200);
      return envelopeSuccess.body(data, reply);
    },
  },
  error: envelopeErrors,
};

export function nodeRoutes(app: FastifyInstance, { nodes, moves, copies }: NodeServices) {
  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/nodes',
    operation: 'drive.node.list',
    permission: VIEW,
    errors: [404], // the space or folder of the query
    schema: {
      tags,
      summary: "A folder's content (parentId omitted: the space root)",
      description:
        'The live children the caller may browse: folders first, then `sort` (name, case-insensitive; updatedAt; size; type = extension) in `order`. ' +
        'With a parentId the caller needs browse on that folder (a folder of spaceId). ' +
        '`myRole` is the caller’s effective role on each row (§5.5).',
      querystring: NodeListQuery,
      response: PageOf(NodeView),
    },
    handler: async (req) => nodes.list(req.scope, req.query),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/nodes/starred',
    operation: 'drive.star.list',
    permission: VIEW,
    schema: {
      tags,
      summary: 'My starred nodes I may still browse, newest star first',
      querystring: PageQuery,
      response: PageOf(StarredView),
    },
    handler: async (req) => nodes.starred(req.scope, req.query),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/nodes/recent',
    operation: 'drive.recent.list',
    permission: VIEW,
    schema: {
      tags,
      summary: 'Files I opened lately and may still browse, latest first',
      querystring: PageQuery,
      response: PageOf(RecentView),
    },
    handler: async (req) => nodes.recent(req.scope, req.query),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/nodes/shared-with-me',
    operation: 'drive.shared.list',
    permission: VIEW,
    schema: {
      tags,
      summary: 'Nodes others granted to me, my department, roles or groups, newest grant first',
      description:
        'Live nodes carrying a live direct grant to one of my subjects, made by someone else, outside my own personal space; ' +
        'each once, with the highest granted role, who granted it and when.',
      querystring: PageQuery,
      response: PageOf(SharedView),
    },
    handler: async (req) => nodes.sharedWithMe(req.scope, req.query),
  });

  route(app, {
    ...base,
    method: 'GET',
    url: '/api/drive/nodes/:id',
    operation: 'drive.node.get',
    permission: VIEW,
    schema: {
      tags,
      summary: 'One node, with the path above it',
      description: 'Opening a file records it in my recent files.',
      params: IdParams,
      response: NodeDetail,
    },
    handler: async (req) => nodes.get(req.scope, req.params.id),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/nodes/folder',
    operation: 'drive.folder.create',
    permission: EDIT,
    errors: [404], // the space or parent folder of the body
    status: 201,
    reply: createdOrFound,
    responses: {
      200: {
        description: 'conflict skip: the folder was already there',
        content: { 'application/json': Envelope(FolderResult) },
      },
    },
    schema: {
      tags,
      summary: 'Create a folder',
      description:
        'Needs the editor role on the parent folder (or in the space, for the root). A live sibling of the same name (any case): ' +
        'keepBoth (default) names the new folder "name (1)"; skip answers 200 with the existing folder and skipped true ' +
        '(409 drive.name_taken when that sibling is a file); fail answers 409 drive.name_taken.',
      body: FolderBody,
      response: FolderResult,
    },
    handler: async (req) => nodes.createFolder(req.scope, req.body),
  });

  route(app, {
    ...base,
    method: 'PUT',
    url: '/api/drive/nodes/:id/rename',
    operation: 'drive.node.rename',
    permission: EDIT,
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Rename a node',
      description:
        '409 drive.name_taken when a live sibling has the name (any case; a case change of its own name is allowed); ' +
        '423 drive.node_locked while another user has it checked out.',
      params: IdParams,
      body: RenameBody,
      response: NodeView,
    },
    handler: async (req) => nodes.rename(req.scope, req.params.id, req.body.name),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/nodes/move',
    operation: 'drive.node.move',
    permission: EDIT,
    errors: [404], // the nodes and the target of the body
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Move nodes (with their subtrees) to a folder or a space root',
      description:
        'All or nothing. Editor on every source (one space) and on the target. Never into itself or its subtree (400 drive.move_into_subtree); ' +
        'a node or anything under it checked out by someone else: 423. To another space: every version’s bytes are charged there ' +
        '(413 drive.quota_exceeded, nothing moved) and released from the source; grants go along. Conflict default fail (409 drive.name_taken).',
      body: MoveBody,
      response: MoveResult,
    },
    handler: async (req) => moves.move(req.scope, req.body),
  });

  route(app, {
    ...base,
    method: 'POST',
    url: '/api/drive/nodes/copy',
    operation: 'drive.node.copy',
    permission: EDIT,
    errors: [404], // the nodes and the target of the body
    status: 201,
    schema: {
      tags,
      summary: 'Copy nodes (folders deeply) to a folder or a space root',
      description:
        'All or nothing. Editor on every source (one space) and on the target. A copied file shares the stored content ' +
        '(its current version only) and its size is charged to the target space (413 drive.quota_exceeded: nothing created). ' +
        'Grants are not copied: copies take the permissions of where they land. Descendants the caller is not editor on are left out (omitted). ' +
        `At most ${MAX_COPY_NODES} nodes per copy (400 naming ids). Conflict default keepBoth.`,
      body: CopyBody,
      response: CopyResult,
    },
    handler: async (req) => copies.copy(req.scope, req.body),
  });

  route(app, {
    ...base,
    method: 'PUT',
    url: '/api/drive/nodes/:id/star',
    operation: 'drive.star.add',
    permission: VIEW,
    schema: { tags, summary: 'Star a node (again: no change)', params: IdParams, response: Ok },
    handler: async (req) => {
      await nodes.star(req.scope, req.params.id);
    },
  });

  route(app, {
    ...base,
    method: 'DELETE',
    url: '/api/drive/nodes/:id/star',
    operation: 'drive.star.remove',
    permission: VIEW,
    schema: { tags, summary: 'Unstar a node (not starred: no change)', params: IdParams, response: Ok },
    handler: async (req) => {
      await nodes.unstar(req.scope, req.params.id);
    },
  });
}
