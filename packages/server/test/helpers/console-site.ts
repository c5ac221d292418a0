import { readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The built console (packages/console/dist) on its own loopback port, /api proxied to the
 * service, index.html for every other path (the console's router decides): what the service will
 * do itself once it serves the console. For browser tests until then.
 */
export async function serveConsole(dist: string, api: string, port: number): Promise<Server> {
  const target = new URL(api);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/api/')) {
      const upstream = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
      return;
    }
    const file = normalize(join(dist, path));
    const asset = file.startsWith(dist) && extname(file) !== '' ? file : join(dist, 'index.html');
    readFile(asset).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(asset)] ?? 'application/octet-stream' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return server;
}
