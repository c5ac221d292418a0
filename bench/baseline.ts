import Fastify from 'fastify';

/** The yardstick: Fastify with one route and nothing else, on the same machine and Node. */
const app = Fastify({ logger: false });
app.get('/', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });

process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
