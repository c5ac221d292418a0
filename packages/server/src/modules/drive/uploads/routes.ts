import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { envelopeError, route } from '../../../platform/http/route.ts';
import { Binary, IdParams, Ok } from '../../../platform/http/schemas.ts';
import { contentResponses, readFilePart } from '../../files/index.ts';
import { SANDBOX_HEADERS } from '../content-headers.ts';
import { lockedNode } from '../nodes/locks.ts';
import {
  ChunkQuery,
  ChunkReceipt,
  CompleteBody,
  ContentQuery,
  PrecheckBody,
  PrecheckResult,
  UploadedNode,
  UploadForm,
  UploadInitBody,
  UploadInitResult,
  UploadQuery,
  UploadSession,
} from './schemas.ts';
import { toFileNodeView, type UploadsService } from './uploads-service.ts';

const tags = ['DriveFiles'];
const feature = 'drive';
const edit = 'drive:node:edit';

/** Uploads into the drive (single, chunked, instant) and file content through the ACL. */
/** complete recomputes the SHA-256: bytes that differ from the declared contentHash abort the upload */
const hashMismatch = {
  422: envelopeError('drive.hash_mismatch: the bytes received differ from contentHash; the upload is aborted'),
};

export function uploadRoutes(app: FastifyInstance, uploads: UploadsService) {
  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/upload',
    operation: 'drive.node.upload',
    auth: 'user',
    permission: edit,
    feature,
    errors: [404], // the space, folder or file of the form
    status: 201,
    consumes: ['multipart/form-data'],
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Upload a file in one request (multipart/form-data, one file part)',
      description:
        'Into a folder (parentId; the space root when omitted) with the conflict policy, or as the next version of nodeId. ' +
        'Up to files.chunkThresholdMb MB (larger: 413 drive.use_chunked_upload; use /upload/init). The SHA-256 is computed on the server. ' +
        'Blocked extensions (drive setting blockedExtensions) and executable content are refused (400 files.blocked_type); the general MIME allow-list does not apply. ' +
        'Needs the editor role on the folder (or on the file for a new version); 413 drive.quota_exceeded past the space quota; 423 drive.node_locked while someone else holds the lock.',
      querystring: UploadQuery,
      body: UploadForm,
      response: UploadedNode,
    },
    handler: async (req) => {
      const plan = await uploads.prepare(req.scope, req.query);
      const part = await readFilePart(req as unknown as FastifyRequest, plan.limits, uploads.tooLarge(plan));
      const placed = await uploads.upload(plan, part);
      return { ...toFileNodeView(placed.node), skipped: placed.skipped };
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/upload/init',
    operation: 'drive.upload.init',
    auth: 'user',
    permission: edit,
    feature,
    errors: [404], // the space, folder or file of the body
    status: 201,
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Start a chunked upload (reserves the quota)',
      description:
        'Every chunk has chunkSize bytes except the last; at most 10000 chunks; size up to files.maxSizeMb. contentHash is only a ' +
        'precheck input: complete recomputes the SHA-256 and a mismatch aborts the upload (422 drive.hash_mismatch). ' +
        'The size is reserved against the space quota until complete or abort (413 drive.quota_exceeded). ' +
        'With conflict=skip and a file of that name, no session is opened: the answer is { skipped: true, node }.',
      body: UploadInitBody,
      response: UploadInitResult,
    },
    handler: async (req) => uploads.init(req.scope, req.body),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/upload/chunk',
    operation: 'drive.upload.chunk',
    auth: 'user',
    permission: edit,
    feature,
    errors: [404], // the upload session named in the query
    // one operation-log row per upload (init, complete), not one per chunk
    audit: false,
    consumes: ['application/octet-stream'],
    schema: {
      tags,
      summary: 'Store one chunk (raw application/octet-stream body); a repeat replaces it',
      querystring: ChunkQuery,
      body: Binary,
      response: ChunkReceipt,
    },
    handler: async (req) => uploads.putChunk(req.scope, req.query.sessionId, req.query.index, rawBody(req)),
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/upload/:id',
    operation: 'drive.upload.get',
    auth: 'user',
    permission: edit,
    feature,
    schema: {
      tags,
      summary: 'A chunked upload with the chunks received so far (to resume)',
      params: IdParams,
      response: UploadSession,
    },
    handler: async (req) => uploads.status(req.scope, req.params.id),
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/upload/complete',
    operation: 'drive.upload.complete',
    auth: 'user',
    permission: edit,
    feature,
    errors: [404], // the upload session of the body
    status: 201,
    responses: { ...lockedNode, ...hashMismatch },
    schema: {
      tags,
      summary: 'Assemble the chunks into the file (SHA-256 recomputed on the server)',
      description:
        'Creates the file (or its next version) in one transaction; the reservation becomes usage. A hash mismatch aborts the ' +
        'upload and gives the reservation back (422 drive.hash_mismatch); so does a placement refused at this point (a lock, ' +
        'a folder of that name). A repeat after success answers the same node.',
      body: CompleteBody,
      response: UploadedNode,
    },
    handler: async (req) => {
      const placed = await uploads.complete(req.scope, req.body.sessionId);
      return { ...toFileNodeView(placed.node), skipped: placed.skipped };
    },
  });

  route(app, {
    method: 'DELETE',
    url: '/api/drive/nodes/upload/:id',
    operation: 'drive.upload.abort',
    auth: 'user',
    permission: edit,
    feature,
    schema: {
      tags,
      summary: 'Abort a chunked upload: its chunks are deleted, its reservation released',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await uploads.abort(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/drive/nodes/precheck',
    operation: 'drive.node.precheck',
    auth: 'user',
    permission: edit,
    feature,
    errors: [404], // the space, folder or file of the body
    responses: lockedNode,
    schema: {
      tags,
      summary: 'Instant upload by SHA-256, or how to upload',
      description:
        'When sha256 (and size) is the content of a version of a live file of the tenant that the caller may download, the new ' +
        'file is created at once from that content (instant: true; the quota is charged). Otherwise instant: false with ' +
        'useChunked telling whether this size needs the chunked upload.',
      body: PrecheckBody,
      response: PrecheckResult,
    },
    handler: async (req) => uploads.precheck(req.scope, req.body),
  });

  route(app, {
    method: 'GET',
    url: '/api/drive/nodes/:id/content',
    operation: 'drive.node.content',
    auth: 'user',
    permission: 'drive:node:view',
    feature,
    reply: replyFormats.file,
    responses: contentResponses,
    schema: {
      tags,
      summary: 'The content of a file or of one of its versions (Range, ETag / If-None-Match)',
      description:
        'A preview (viewer role) by default; download=true needs the downloader role (a viewer gets 403 drive.role_too_low). ' +
        'Only raster images and PDF are shown in place; anything else (HTML, SVG, XML…) is an attachment, and every answer ' +
        "carries Content-Security-Policy: sandbox; default-src 'none' and X-Content-Type-Options: nosniff.",
      params: IdParams,
      querystring: ContentQuery,
      response: Type.String({ format: 'binary' }),
    },
    handler: async (req, reply) => {
      // a Range past the first byte continues a reading already recorded
      const recent = !/^bytes=\s*[1-9]/.test(req.headers.range ?? '');
      const { file, inline } = await uploads.content(req.scope, req.params.id, req.query, recent);
      reply.headers(SANDBOX_HEADERS);
      return uploads.send(req as unknown as FastifyRequest, reply, file, { inline });
    },
  });
}

/** The body as the octet-stream parser left it: the request stream itself, never buffered. */
function rawBody(req: { body?: unknown }): Readable | undefined {
  return req.body instanceof Readable ? req.body : undefined;
}
