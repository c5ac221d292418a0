import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok } from '../../../platform/http/schemas.ts';
import type { GrantsService } from './grants-service.ts';
import {
  AccessQuery,
  AccessView,
  GrantCreateBody,
  GrantParams,
  GrantUpdateBody,
  GrantView,
  InheritBody,
  PermissionsView,
} from './schemas.ts';

/** `/api/drive/nodes/{id}/permissions`, `/inherit`, `/access`: grants, inheritance and why a subject has its role. */
export function permissionRoutes(app: FastifyInstance, grants: GrantsService) {
  const tags = ['DrivePermissions'];
  const common = { auth: 'user', feature: 'drive' } as const;

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/nodes/:id/permissions',
    operation: 'drive.permission.list',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: "A node's grants: its own and those reaching it from above",
      description:
        'Any role on the node may read it. `breakAt` names the node where inheritance is broken (the space roles do not reach below it); expired grants are listed with `expired: true` and no longer apply.',
      params: IdParams,
      response: PermissionsView,
    },
    handler: async (req) => grants.list(req.scope, req.params.id),
  });

  route(app, {
    ...common,
    method: 'POST',
    url: '/api/drive/nodes/:id/permissions',
    operation: 'drive.permission.create',
    permission: 'drive:node:edit',
    status: 201,
    schema: {
      tags,
      summary: 'Grant a subject a role on a node (manager)',
      description:
        'The grant reaches the subtree until a node breaks inheritance. One grant per subject and node: a second is 409 drive.grant_exists (change it with PUT). The subject must exist in the tenant (400 drive.subject_not_found); `expiresAt` must be in the future. The users the subject stands for, the granter aside, are notified (drive.node.shared).',
      params: IdParams,
      body: GrantCreateBody,
      response: GrantView,
    },
    handler: async (req) => grants.add(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'PUT',
    url: '/api/drive/nodes/:id/permissions/:grantId',
    operation: 'drive.permission.update',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: "Change a grant's role or expiry (manager); only the fields sent change",
      params: GrantParams,
      body: GrantUpdateBody,
      response: GrantView,
    },
    handler: async (req) => grants.update(req.scope, req.params.id, req.params.grantId, req.body),
  });

  route(app, {
    ...common,
    method: 'DELETE',
    url: '/api/drive/nodes/:id/permissions/:grantId',
    operation: 'drive.permission.delete',
    permission: 'drive:node:edit',
    schema: { tags, summary: 'Remove a grant (manager)', params: GrantParams, response: Ok },
    handler: async (req) => {
      await grants.remove(req.scope, req.params.id, req.params.grantId);
    },
  });

  route(app, {
    ...common,
    method: 'PUT',
    url: '/api/drive/nodes/:id/inherit',
    operation: 'drive.inheritance.update',
    permission: 'drive:node:edit',
    schema: {
      tags,
      summary: 'Break or restore permission inheritance at a folder or file (manager)',
      description:
        "Breaking (`inherit: false`) stops the grants above and the space's roles from reaching the node and its subtree; space managers keep the manager role. With `copyInherited` (default true) the live grants that reached the node from above are copied onto it, so no granted subject loses access — the space roles are cut either way. Restoring takes the parent's inheritance again (copied grants stay). Asking for the current state changes nothing.",
      params: IdParams,
      body: InheritBody,
      response: PermissionsView,
    },
    handler: async (req) => grants.setInherit(req.scope, req.params.id, req.body),
  });

  route(app, {
    ...common,
    method: 'GET',
    url: '/api/drive/nodes/:id/access',
    operation: 'drive.access.explain',
    permission: 'drive:node:view',
    schema: {
      tags,
      summary: 'Why a subject has the role it has on a node',
      description:
        "Without subjectType/subjectId: yourself (any role on the node). Another subject needs the manager role. Each source (administrator, owner, department head or member, the space's default role, space membership, grants along the acl chain) is listed with whether it applies and why not; `summary` says it in one line. Another user's menu permissions (and administrator standing) are not part of the answer.",
      params: IdParams,
      querystring: AccessQuery,
      response: AccessView,
    },
    handler: async (req) => grants.explain(req.scope, req.params.id, req.query),
  });
}
