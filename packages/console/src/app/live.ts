import type { QueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { currentAccessToken } from '../api/client';
import { isSignedIn, onSessionChange, refresh } from './session';

/**
 * The live hub (CONSOLE.md, "Live"): one WebSocket to /api/ws for the whole signed-in console.
 * The server authenticates it by `access_token` in the query (browsers cannot set headers on a
 * WebSocket) and pushes `{ id, topic, data }`; each topic invalidates the queries under its keys,
 * so what is on screen refetches. A lost socket comes back with backoff and resumes from the last
 * event id it saw: the server replays what happened meanwhile. A reconnect that has no id to
 * resume from (nothing arrived yet) refetches every live query instead. Closed on sign-out.
 */

/** Which query keys (prefixes) each topic makes stale. Pages keep their keys under these. */
export const TOPIC_KEYS: Record<string, readonly (readonly string[])[]> = {
  'inapp.message': [['notifications', 'inapp']],
  'announcement.published': [['notifications', 'announcements']],
  'notice.published': [['notices']],
  'task.finished': [['tasks']],
};

export type LiveStatus = 'idle' | 'connecting' | 'open' | 'waiting';
export type LiveEvent = { id?: number; topic: string; data: unknown; createdAt?: string };

const MIN_DELAY = 1_000;
const MAX_DELAY = 30_000;

let client: QueryClient | null = null;
let socket: WebSocket | null = null;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let attempts = 0;
let lastEventId: number | undefined;
let hadConnection = false;
let status: LiveStatus = 'idle';
const statusListeners = new Set<() => void>();
const eventListeners = new Set<(e: LiveEvent) => void>();

function setStatus(next: LiveStatus) {
  if (status === next) return;
  status = next;
  for (const l of statusListeners) l();
}

function invalidateAll() {
  for (const keys of Object.values(TOPIC_KEYS))
    for (const queryKey of keys) void client?.invalidateQueries({ queryKey: [...queryKey] });
}

function socketUrl(token: string): string {
  const url = new URL('/api/ws', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('access_token', token);
  if (lastEventId !== undefined) url.searchParams.set('lastEventId', String(lastEventId));
  return url.toString();
}

function scheduleReconnect() {
  clearTimeout(retryTimer);
  if (!client || !isSignedIn()) return setStatus('idle');
  setStatus('waiting');
  // offline: wait for the browser to say it is back ('online' below) rather than spin
  if (!navigator.onLine) return;
  // exponential with jitter, so a restarted server is not hit by every console at once
  const delay = Math.min(MAX_DELAY, MIN_DELAY * 2 ** attempts) * (0.5 + Math.random() / 2);
  attempts += 1;
  retryTimer = setTimeout(() => void open(), delay);
}

async function open() {
  clearTimeout(retryTimer);
  if (!client || socket || !isSignedIn()) return;
  let token = currentAccessToken();
  if (!token) token = await refresh();
  if (!token || !client || socket) return;
  setStatus('connecting');
  const ws = new WebSocket(socketUrl(token));
  socket = ws;
  let resumed = lastEventId !== undefined;
  ws.onmessage = (message) => {
    let event: LiveEvent;
    try {
      event = JSON.parse(String(message.data)) as LiveEvent;
    } catch {
      return;
    }
    if (event.topic === 'ready') {
      attempts = 0;
      setStatus('open');
      // back after a gap with nothing to resume from: what is on screen may be stale
      if (hadConnection && !resumed) invalidateAll();
      hadConnection = true;
      resumed = true;
      return;
    }
    if (typeof event.id === 'number' && (lastEventId === undefined || event.id > lastEventId)) lastEventId = event.id;
    for (const queryKey of TOPIC_KEYS[event.topic] ?? []) void client?.invalidateQueries({ queryKey: [...queryKey] });
    for (const l of eventListeners) l(event);
  };
  ws.onclose = (e) => {
    if (socket !== ws) return;
    socket = null;
    // 4401: the token was refused (expired under a sleeping laptop, or the session ended): refresh
    // first; a session that ended elsewhere then signs out, which stops the hub
    if (e.code === 4401) {
      void refresh().then((next) => (next ? scheduleReconnect() : setStatus('idle')));
      return;
    }
    scheduleReconnect();
  };
}

function close() {
  clearTimeout(retryTimer);
  const ws = socket;
  socket = null;
  if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000, 'closed by the console');
  setStatus(client && isSignedIn() ? 'waiting' : 'idle');
}

const onOnline = () => {
  attempts = 0;
  void open();
};
// the socket of a machine that went offline is dead but may not know it for minutes
const onOffline = () => {
  close();
  setStatus('waiting');
};

/** Starts the hub for the signed-in console; the answer stops it (the shell unmounting). */
export function startLive(queryClient: QueryClient): () => void {
  client = queryClient;
  const unsubscribe = onSessionChange((signedIn) => {
    if (signedIn) void open();
    else stop();
  });
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', onOffline);
  void open();
  function stop() {
    close();
    lastEventId = undefined;
    hadConnection = false;
    attempts = 0;
    setStatus('idle');
  }
  return () => {
    unsubscribe();
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', onOffline);
    stop();
    client = null;
  };
}

/** Listens to every pushed event (after its queries were invalidated). */
export function onLiveEvent(listener: (e: LiveEvent) => void): () => void {
  eventListeners.add(listener);
  return () => eventListeners.delete(listener);
}

export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(
    (l) => {
      statusListeners.add(l);
      return () => statusListeners.delete(l);
    },
    () => status,
  );
}
