import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on a loopback address for the egress tests: it records what reaches it and
 * answers with redirects, hangs, dropped connections, drips and large bodies on demand.
 */
export type Hit = {
  method: string;
  path: string;
  host: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
};

export type Receiver = {
  origin: string;
  port: number;
  hits: Hit[];
  /** settles when the last /big response closes: finished or cut off by the client */
  lastBig(): Promise<{ finished: boolean; sent: number }>;
  close(): Promise<void>;
};

export async function startReceiver(host = '127.0.0.1', port = 0): Promise<Receiver> {
  const hits: Hit[] = [];
  let big: Promise<{ finished: boolean; sent: number }> = Promise.resolve({ finished: false, sent: 0 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      hits.push({
        method: req.method ?? '',
        path: url.pathname,
        host: req.headers.host,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const q = url.searchParams;
      switch (url.pathname) {
        case '/echo':
          return json(res, {
            method: req.method,
            path: url.pathname,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
          });
        case '/redirect':
          res.writeHead(Number(q.get('status') ?? 302), { location: q.get('to') ?? '/ok' });
          return res.end('moved');
        case '/loop':
          res.writeHead(302, { location: '/loop' });
          return res.end();
        case '/hang':
          return; // never answers
        case '/drop':
          return void req.socket.destroy(); // the request was read; the connection ends unanswered
        case '/drip':
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('first bytes');
          return; // never ends
        case '/big':
          big = streamBytes(res, Number(q.get('bytes')), q.get('declared') === '1');
          return;
        default:
          res.writeHead(200, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] });
          return res.end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${actual}`,
    port: actual,
    hits,
    lastBig: () => big,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, value: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Writes `total` bytes in 64 KiB chunks, honouring back-pressure; reports whether it got to the end. */
function streamBytes(
  res: ServerResponse,
  total: number,
  declared: boolean,
): Promise<{ finished: boolean; sent: number }> {
  res.writeHead(200, { 'content-type': 'application/octet-stream', ...(declared ? { 'content-length': total } : {}) });
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  return new Promise((resolve) => {
    res.on('close', () => resolve({ finished: res.writableFinished, sent }));
    const pump = () => {
      while (sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
}
