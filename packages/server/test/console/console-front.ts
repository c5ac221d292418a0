import { existsSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

/**
 * The built console in front of a test service, as the service will serve it (branch console-serve:
 * index.html for browser GETs outside /api, assets from packages/console/dist): files from dist,
 * /api passed through to the service. Replace with the service's own serving once it has landed.
 */
const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export async function serveConsole(dist: string, apiPort: number): Promise<{ origin: string; server: Server }> {
  if (!existsSync(join(dist, 'index.html'))) throw new Error(`no built console in ${dist}`);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/api/')) {
      const upstream = request(
        { host: '127.0.0.1', port: apiPort, path: req.url, method: req.method, headers: req.headers },
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
    const asset = file.startsWith(dist) && path !== '/' && existsSync(file) ? file : join(dist, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(asset)] ?? 'application/octet-stream' });
    res.end(readFileSync(asset));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
