import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { route } from '../../../platform/http/route.ts';
import { Binary, IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import { MAX_MAP_MB } from './limits.ts';
import { SourceMap, SourceMapQuery } from './schemas.ts';
import type { SourceMapService } from './service.ts';
import { readUpload } from './upload-body.ts';

const tags = ['FrontendErrors'];

/** `/api/frontend-errors/source-maps`: maps that restore minified stacks of the caller's tenant. */
export function sourceMapRoutes(app: FastifyInstance, maps: SourceMapService) {
  route(app, {
    method: 'GET',
    url: '/api/frontend-errors/source-maps',
    operation: 'monitor.source_map.list',
    auth: 'user',
    permission: 'monitor:error:list',
    schema: {
      tags,
      summary: 'List uploaded source maps, newest first (optionally of one release)',
      querystring: SourceMapQuery,
      response: PageOf(SourceMap),
    },
    handler: async (req) => maps.list(req.scope, req.query),
  });

  route(app, {
    method: 'POST',
    url: '/api/frontend-errors/source-maps',
    operation: 'monitor.source_map.upload',
    auth: 'user',
    permission: 'monitor:error:manage',
    status: 201,
    consumes: ['multipart/form-data'],
    schema: {
      tags,
      summary: 'Upload a source map for a release and bundle file name (replaces the existing one)',
      description:
        'multipart/form-data with fields `release` (must equal the release the reporter sends), `fileName` (the bundle ' +
        'file name as in minified stacks, e.g. `app.min.js`) and the `file` part. The same release and file name ' +
        `replace the stored map in one transaction. Over ${MAX_MAP_MB} MB: 413 monitor.source_map_too_large, nothing ` +
        'stored. Not JSON or not a version 3 source map: 400 monitor.source_map_invalid.',
      body: Type.Object({ release: Type.String(), fileName: Type.String(), file: Binary }),
      response: SourceMap,
    },
    handler: async (req) => maps.upload(req.scope, await readUpload(req as unknown as FastifyRequest)),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/frontend-errors/source-maps/:id',
    operation: 'monitor.source_map.delete',
    auth: 'user',
    permission: 'monitor:error:manage',
    schema: { tags, summary: 'Delete a source map', params: IdParams, response: Ok },
    handler: async (req) => {
      await maps.remove(req.scope, req.params.id);
    },
  });
}
