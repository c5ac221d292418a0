import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { uploadBodies } from '../../platform/http/upload-bodies.ts';
import { createCollector } from './collector-service.ts';
import type { FileWithObject } from './file-repository.ts';
import { createFilesService } from './files-service.ts';
import { sendContent } from './http-content.ts';
import { filesJobs } from './jobs.ts';
import { createObjectStore } from './object-store-service.ts';
import { createReferences } from './references.ts';
import { fileRoutes } from './routes/files.ts';
import { registerStorageRoutes } from './routes/storage-configs.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { filesSettings } from './settings.ts';
import { createStorageConfigService } from './storage/configs-service.ts';
import { createStorageResolver } from './storage-resolver.ts';
import { createChunkedUploads } from './uploads-service.ts';

export { endsWithExtension, normalizeExtension } from './file-guards.ts';
export type { FileWithObject, RefOwner } from './file-repository.ts';
export { contentDisposition, contentResponses, etagMatches } from './http-content.ts';
export { type FilePart, readFilePart } from './multipart.ts';
export { StreamTooLong } from './streams.ts';
export { checkName, type UploadLimits, type UploadPolicy } from './upload-policy.ts';
export type { CompletedFile } from './uploads-service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    files: FilesModule;
  }
}

/**
 * Managed files (spec §2.2, §4.3 rules 3–5): storage providers and their configurations,
 * single and chunked uploads, downloads, reference counting with a 24-hour orphan collector.
 * Other modules use the exported service: `store` (a stream → a managed file), `addRef` and
 * `dropRef` inside their own transaction.
 */
export function createFilesModule(ctx: AppContext) {
  ctx.settingsRegistry.register(filesSettings);
  const resolver = createStorageResolver(ctx);
  const refs = createReferences(ctx);
  const store = createObjectStore(ctx);
  const files = createFilesService(ctx, { resolver, store, refs });
  const uploads = createChunkedUploads(ctx, { resolver, store });
  const storageConfigs = createStorageConfigService(ctx, resolver);
  const collector = createCollector(ctx, resolver);

  ctx.jobs.register(filesJobs, () => ({
    clock: ctx.clock,
    collectOrphans: collector.collectOrphans,
    expireUploadSessions: uploads.expireUploadSessions,
  }));

  const mod = {
    resolver,
    files,
    uploads,
    store: files.store,
    /** answers a managed file's content as a download (Range, ETag), for other modules' routes */
    sendDownload: (req: FastifyRequest, reply: FastifyReply, file: FileWithObject) =>
      sendContent(req, reply, file, { inline: false, open: files.open }),
    /**
     * answers a managed file's content (Range, ETag); `inline` shows raster images and PDF in
     * place, anything else (HTML, SVG, XML…) still goes as an attachment
     */
    sendContent: (req: FastifyRequest, reply: FastifyReply, file: FileWithObject, opts: { inline: boolean }) =>
      sendContent(req, reply, file, { inline: opts.inline, open: files.open }),
    addRef: refs.addRef,
    dropRef: refs.dropRef,
    collectOrphans: collector.collectOrphans,
    expireUploadSessions: uploads.expireUploadSessions,
    /** the health check of the platform's default storage */
    probeStorage: resolver.probe,
    async register(app: FastifyInstance) {
      app.decorate('files', mod);
      // Multipart and raw octet-stream bodies are parsed only by the routes of this module.
      await app.register(async (scope) => {
        await uploadBodies(scope);
        fileRoutes(scope, files);
        uploadRoutes(scope, uploads, files);
        registerStorageRoutes(scope, storageConfigs);
      });
      app.addHook('onClose', async () => resolver.close());
    },
  };
  return mod;
}

export type FilesModule = ReturnType<typeof createFilesModule>;
