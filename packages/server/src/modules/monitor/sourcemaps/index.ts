import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../platform/context.ts';
import { createRestorer } from './restore.ts';
import { sourceMapRoutes } from './routes.ts';
import { createSourceMapService } from './service.ts';

/** Source maps (spec §4.6 rule 5): upload, list, delete, and the restorer of the issue detail. */
export function createSourceMaps(ctx: AppContext) {
  const service = createSourceMapService(ctx);
  return {
    restore: createRestorer(ctx.db),
    async register(app: FastifyInstance) {
      // Multipart is parsed only by the upload route's own plugin scope.
      await app.register(async (scope) => {
        await scope.register(multipart);
        // A refused upload leaves the rest of its body unread: close instead of draining 20 MB.
        scope.addHook('onSend', async (req, reply) => {
          if (req.raw.complete === false) reply.header('connection', 'close');
        });
        sourceMapRoutes(scope, service);
      });
    },
  };
}
