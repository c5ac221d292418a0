import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { IdParams } from '../../../platform/http/schemas.ts';
import { readFilePart } from '../../files/index.ts';
import { lockedNode } from '../nodes/locks.ts';
import { UploadForm } from '../uploads/schemas.ts';
import type { UploadsService } from '../uploads/uploads-service.ts';
import { PinBody, VersionParams, VersionView } from './schemas.ts';
import { toVersionView, type VersionsService } from './versions-service.ts';

const tags = ['DriveVersions'];
const feature = 'drive';

/** A file's versions: the history, a new version from bytes, rollback, pin. */
export function versionRoutes(app: FastifyInstance, versions: VersionsService, uploads: UploadsService) {
  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/:id/versions',
    operation: 'drive.version.list',
    auth: 'user',
    permission: 'drive:node:view',
    feature,
    schema: { tags, summary: "A file's versions, newest first", params: IdParams, response: Type.Array(VersionView) },
    handler: async (req) => versions.list(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/:id/versions',
    operation: 'drive.version.upload',
    auth: 'user',
    permission: 'drive:node:edit',
    feature,
    status: 201,
    consumes: ['multipart/form-data'],
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Upload a new version (multipart/form-data, one file part)',
      description:
        'The same limits and checks as POST /api/drive/nodes/upload; needs the editor role on the file; 423 drive.node_locked ' +
        'while someone else holds its lock. The oldest unpinned versions beyond the version cap are removed.',
      params: IdParams,
      body: UploadForm,
      response: VersionView,
    },
    handler: async (req) => {
      const plan = await uploads.prepare(req.scope, { nodeId: req.params.id });
      const part = await readFilePart(req as unknown as FastifyRequest, plan.limits, uploads.tooLarge(plan));
      const { version } = await uploads.upload(plan, part);
      if (!version) throw new Error('a version upload placed no version');
      return toVersionView(version, version.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/:id/versions/:versionId/rollback',
    operation: 'drive.version.rollback',
    auth: 'user',
    permission: 'drive:node:edit',
    feature,
    status: 201,
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Make an older version current again, as a new version',
      description:
        'Creates a new version with the content of versionId (charged to the quota like any version; the version cap applies); ' +
        'history is never rewritten. 409 drive.version_is_current for the current version.',
      params: VersionParams,
      response: VersionView,
    },
    handler: async (req) => versions.rollback(req.scope, req.params.id, req.params.versionId),
  });

  route(app, {
    method: 'PUT',
    url: '/api/drive/nodes/:id/versions/:versionId/pin',
    operation: 'drive.version.pin',
    auth: 'user',
    permission: 'drive:node:edit',
    feature,
    schema: {
      tags,
      summary: 'Pin or unpin a version (a pinned version is never removed by the version cap)',
      params: VersionParams,
      body: PinBody,
      response: VersionView,
    },
    handler: async (req) => versions.pin(req.scope, req.params.id, req.params.versionId, req.body.pinned),
  });
}
