import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
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

export type { RefOwner } from './file-repository.ts';

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
    addRef: refs.addRef,
    dropRef: refs.dropRef,
    collectOrphans: collector.collectOrphans,
    expireUploadSessions: uploads.expireUploadSessions,
    async register(app: FastifyInstance) {
      app.decorate('files', mod);
      // Multipart and raw octet-stream bodies are parsed only by the routes of this module.
      await app.register(async (scope) => {
        await scope.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 1024, parts: 20 } });
        // Chunks stream from the request to the provider: the parser hands the stream on untouched.
        scope.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
        // A refused upload leaves the rest of its body unread: close the connection after the answer
        // instead of reading (possibly gigabytes) to keep it alive.
        scope.addHook('onSend', async (req, reply) => {
          if (req.raw.complete === false) reply.header('connection', 'close');
        });
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
