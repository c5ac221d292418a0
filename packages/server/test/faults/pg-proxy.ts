import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/**
 * A TCP relay between the service and a real PostgreSQL server, to make the network faults a
 * server on another machine has without stopping the test run's shared server:
 * - `pass`: relays (the normal case);
 * - `refuse`: nothing listens on the port (connection refused: the server is down);
 * - `hang`: accepts connections and never answers (a server stopped with SIGSTOP, a black hole);
 * `cut()` ends every relayed connection at once (the server went away under them).
 */
export type PgProxy = {
  /** `serverUrl` with the relay's host and port */
  url: string;
  set(mode: 'pass' | 'refuse' | 'hang'): Promise<void>;
  cut(): void;
  close(): Promise<void>;
};

export async function startPgProxy(serverUrl: string): Promise<PgProxy> {
  const target = new URL(serverUrl);
  const socketDir = target.searchParams.get('host');
  const upstreamPort = Number(target.port || 5432);
  // the run's own embedded cluster listens on a Unix socket: `host=<dir>` in the query
  const upstream = () =>
    socketDir?.startsWith('/')
      ? tcpConnect({ path: `${socketDir}/.s.PGSQL.${upstreamPort}` })
      : tcpConnect({ host: target.hostname, port: upstreamPort });

  let mode: 'pass' | 'refuse' | 'hang' = 'pass';
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
  };
  const onConnection = (client: Socket) => {
    track(client);
    if (mode === 'hang') return; // holds the connection, says nothing
    const server = upstream();
    track(server);
    client.pipe(server).on('error', () => {});
    server.pipe(client).on('error', () => {});
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  };

  let listener: Server = createServer(onConnection);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as AddressInfo).port;
  const listening = () => listener.listening;

  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.searchParams.delete('host');

  const cut = () => {
    for (const s of open) s.destroy();
  };
  return {
    url: url.toString(),
    async set(next) {
      mode = next;
      if (next === 'refuse') cut(); // the server is gone: its connections too
      if (next === 'refuse' && listening()) {
        await new Promise<void>((resolve) => listener.close(() => resolve()));
      } else if (next !== 'refuse' && !listening()) {
        listener = createServer(onConnection);
        await new Promise<void>((resolve) => listener.listen(port, '127.0.0.1', resolve));
      }
    },
    cut,
    async close() {
      cut();
      if (listening()) await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
