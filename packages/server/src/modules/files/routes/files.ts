import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { httpErrors } from '../../../platform/http/errors.ts';
import { replyFormats } from '../../../platform/http/reply-formats.ts';
import { route } from '../../../platform/http/route.ts';
import { IdParams, Ok, PageOf } from '../../../platform/http/schemas.ts';
import type { FilesService } from '../files-service.ts';
import { contentResponses, sendContent } from '../http-content.ts';
import { readFilePart } from '../multipart.ts';
import { ContentQuery, FileQuery, ManagedFile, UploadForm } from '../schemas.ts';
import { tooLargeError, type UploadLimits } from '../upload-policy.ts';

const tags = ['Files'];

export function fileRoutes(app: FastifyInstance, files: FilesService) {
  route(app, {
    method: 'POST',
    url: '/api/files',
    operation: 'files.file.upload',
    auth: 'user',
    permission: 'system:file:upload',
    status: 201,
    consumes: ['multipart/form-data'],
    schema: {
      tags,
      summary: 'Upload a file in one request (multipart/form-data)',
      description:
        'One file part (any field name) and optionally a `visibility` field (public | private, default private) placed before the file part. ' +
        'Up to `files.chunkThresholdMb` MB (larger: 400 files.use_chunked_upload; above `files.maxSizeMb`: 413 files.too_large). ' +
        'The stored type is sniffed from the content; executables and blocked extensions are refused (400 files.blocked_type); ' +
        'types outside `files.mimeAllowList` are refused (400 files.type_not_allowed). Identical content is stored once.',
      body: UploadForm,
      response: ManagedFile,
    },
    handler: async (req) => {
      const limits = await files.uploadLimits(req.scope);
      const part = await multipartFile(req as unknown as FastifyRequest, limits);
      return files.upload(req.scope, limits, part);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/files',
    operation: 'files.file.list',
    auth: 'user',
    permission: 'system:file:list',
    schema: {
      tags,
      summary: "The tenant's files (not drive files), newest first",
      querystring: FileQuery,
      response: PageOf(ManagedFile),
    },
    handler: async (req) => files.list(req.scope, req.query),
  });

  route(app, {
    method: 'GET',
    url: '/api/files/:id',
    operation: 'files.file.get',
    auth: 'user',
    permission: 'system:file:list',
    schema: { tags, summary: 'Metadata of a file', params: IdParams, response: ManagedFile },
    handler: async (req) => files.get(req.scope, req.params.id),
  });

  route(app, {
    method: 'DELETE',
    url: '/api/files/:id',
    operation: 'files.file.delete',
    auth: 'user',
    permission: 'system:file:delete',
    schema: {
      tags,
      summary: "Delete a file (drops the upload's own reference)",
      description:
        'The bytes are collected 24 hours after the last reference is gone; a file other owners still use (a notice image, an export) stays.',
      params: IdParams,
      response: Ok,
    },
    handler: async (req) => {
      await files.remove(req.scope, req.params.id);
    },
  });

  route(app, {
    method: 'GET',
    url: '/api/files/:id/content',
    operation: 'files.file.content',
    auth: 'optional',
    reply: replyFormats.file,
    responses: contentResponses,
    schema: {
      tags,
      summary: 'Download the content (Range, ETag / If-None-Match)',
      description:
        'Public files need no token; private files are served to signed-in users of their tenant; drive files answer 404. ' +
        'A single `Range: bytes=a-b` gives 206 (416 when outside the file); `ETag` is the quoted SHA-256. ' +
        'Content-Type is the sniffed type; `?inline=true` shows images and PDF in place.',
      params: IdParams,
      querystring: ContentQuery,
      response: Type.String({ format: 'binary' }),
    },
    handler: async (req, reply) => {
      const file = await files.readable(req.scope, req.params.id);
      return sendContent(req, reply, file, { inline: req.query.inline === true, open: files.open });
    },
  });
}

/** The file part of a multipart body, as a stream; a `visibility` field before it gives the visibility. */
async function multipartFile(req: FastifyRequest, limits: UploadLimits) {
  const part = await readFilePart(req, limits, (limit) => tooLargeError(limits, limit));
  const visibility = part.fields.visibility ?? 'private';
  if (visibility !== 'public' && visibility !== 'private') {
    part.body.destroy();
    throw httpErrors.invalidField('visibility', 'must be public or private');
  }
  return {
    body: part.body,
    name: part.name,
    declaredMime: part.declaredMime,
    visibility: visibility as 'public' | 'private',
  };
}
