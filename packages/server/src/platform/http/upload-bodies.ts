import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * The request bodies of upload routes, for the plugin scope of a module's routes that receive
 * files: multipart (one file part) and raw `application/octet-stream` streamed to the handler
 * untouched (chunks go from the socket to the storage provider). A refused upload leaves the
 * rest of its body unread: the connection is closed after the answer instead of reading
 * (possibly gigabytes) to keep it alive.
 */
export async function uploadBodies(scope: FastifyInstance) {
  await scope.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 1024, parts: 20 } });
  scope.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));
  scope.addHook('onSend', async (req, reply) => {
    if (req.raw.complete === false) reply.header('connection', 'close');
  });
}
