import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { route } from '../../../platform/http/route.ts';
import { Binary, IdParams, Ok } from '../../../platform/http/schemas.ts';
import type { FilesService } from '../files-service.ts';
import { ChunkParams, ChunkReceipt, ManagedFile, UploadInit, UploadSession } from '../schemas.ts';
import type { ChunkedUploads } from '../uploads-service.ts';

const tags = ['Files'];
const permission = 'system:file:upload';

/** Chunked upload sessions: init → PUT chunks (resumable, any order) → complete. */
export function uploadRoutes(app: FastifyInstance, uploads: ChunkedUploads, files: FilesService) {
  route(app, {
    method: 'POST',
    url: '/api/files/uploads',
    operation: 'files.upload.init',
    auth: 'user',
    permission,
    status: 201,
    schema: {
      tags,
      summary: 'Start a chunked upload',
      description:
        'Every chunk has `chunkSize` bytes except the last (the rest); at most 10000 chunks. `declaredSha256` is checked against the ' +
        'server-computed hash on complete (a mismatch aborts the session). Sessions expire 24 hours after their last chunk.',
      body: UploadInit,
      response: UploadSession,
    },
    handler: async (req) => uploads.init(req.scope, req.body),
  });

  route(app, {
    method: 'GET',
    url: '/api/files/uploads/:id',
    operation: 'files.upload.get',
    auth: 'user',
    permission,
    schema: {
      tags,
      summary: 'An upload session with the chunks received so far (to resume)',
      params: IdParams,
      response: UploadSession,
    },
    handler: async (req) => uploads.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'PUT',
    url: '/api/files/uploads/:id/chunks/:index',
    operation: 'files.upload.chunk',
    auth: 'user',
    permission,
    // one operation-log row per upload (init, complete), not one per chunk
    audit: false,
    consumes: ['application/octet-stream'],
    schema: {
      tags,
      summary: 'Store one chunk (raw application/octet-stream body); a repeat replaces it',
      params: ChunkParams,
      body: Binary,
      response: ChunkReceipt,
    },
    handler: async (req) => uploads.putChunk(req.scope, req.params.id, req.params.index, rawBody(req)),
  });

  route(app, {
    method: 'POST',
    url: '/api/files/uploads/:id/complete',
    operation: 'files.upload.complete',
    auth: 'user',
    permission,
    status: 201,
    schema: {
      tags,
      summary: 'Assemble the chunks into a file (SHA-256 recomputed on the server)',
      params: IdParams,
      response: ManagedFile,
    },
    handler: async (req) => {
      const { fileId } = await uploads.complete(req.scope, req.params.id);
      return files.get(req.scope, fileId);
    },
  });

  route(app, {
    method: 'DELETE',
    url: '/api/files/uploads/:id',
    operation: 'files.upload.abort',
    auth: 'user',
    permission,
    schema: { tags, summary: 'Abort an upload and delete its chunks', params: IdParams, response: Ok },
    handler: async (req) => {
      await uploads.abort(req.scope, req.params.id);
    },
  });
}

/** The body as the octet-stream parser left it: the request stream itself, never buffered. */
function rawBody(req: { body?: unknown }): Readable | undefined {
  return req.body instanceof Readable ? req.body : undefined;
}
