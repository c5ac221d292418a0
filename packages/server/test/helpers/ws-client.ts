import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { TestApp } from './app.ts';

/**
 * A live-push client over a real socket, as a browser connects to `/api/ws` (the app must
 * listen first). No timing: every wait is for a message that must come.
 */
export type PushMessage = { id?: number; topic: string; data: Record<string, unknown> };
export type PushClient = {
  messages: PushMessage[];
  waitFor(match: (m: PushMessage) => boolean): Promise<PushMessage>;
  close(): Promise<void>;
};

/** Makes the app listen on a free port; answers the `ws://` base URL. */
export async function listenForSockets(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

/** Connects and resolves once the server said `ready` (after any replay from `lastEventId`). */
export function connect(base: string, token: string, lastEventId?: number): Promise<PushClient> {
  const query = new URLSearchParams({
    access_token: token,
    ...(lastEventId !== undefined ? { lastEventId: String(lastEventId) } : {}),
  });
  const ws = new WebSocket(`${base}/api/ws?${query}`);
  const messages: PushMessage[] = [];
  const waiters: { match: (m: PushMessage) => boolean; resolve: (m: PushMessage) => void }[] = [];
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as PushMessage;
    messages.push(m);
    for (const w of [...waiters]) {
      if (w.match(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  const client: PushClient = {
    messages,
    waitFor(match) {
      const seen = messages.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    client.waitFor((m) => m.topic === 'ready').then(() => resolve(client), reject);
  });
}
