import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

/**
 * The download yardstick: Fastify with `@fastify/static` serving STATIC_ROOT (the bench's 256 MiB
 * file) from disk, with its default Range, ETag and Last-Modified handling. `/ready` answers the
 * readiness probe without sending the file.
 */
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root: String(process.env.STATIC_ROOT), prefix: '/' });
app.get('/ready', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });

process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
