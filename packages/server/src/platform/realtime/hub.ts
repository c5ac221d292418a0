import { and, arrayContains, asc, gt, isNull, lt, max, or } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { UserPrincipal } from '../auth/principal.ts';
import type { Cache } from '../cache/cache.ts';
import type { Db } from '../db/client.ts';
import { platformKey, sameTenantKey } from '../db/tenant-key.ts';
import type { AuthResolver } from '../http/authentication.ts';
import { AppError } from '../http/errors.ts';
import { INT8_SAFE_MAX } from '../http/schemas.ts';
import { realtimeEvents } from './tables.ts';

export type RealtimeEvent = {
  id: number;
  topic: string;
  tenantId: number | null;
  userIds: number[] | null;
  payload: unknown;
  createdAt: string;
};

export type RealtimeHub = ReturnType<typeof createRealtimeHub>;

const CHANNEL = 'realtime';
const KEEP_MS = 24 * 3600 * 1000;
const REPLAY_LIMIT = 500;

type Connection = {
  ws: WebSocket;
  principal: UserPrincipal;
  tenantId: number | null;
  /** the newest event id this socket has had (or the newest stored when it connected) */
  lastId: number;
  /** the ids it had lately: an event that comes twice (a catch-up, a republish) is sent once */
  had: Set<number>;
  /** while Redis is down: `lastId` when it went down, where the catch-up starts */
  since: number | null;
};

/** Ids a socket remembers, and events an instance keeps to publish again after an outage. */
const HAD_LIMIT = 1000;

/**
 * WebSocket push to signed-in users. An event is stored first (its id orders it and lets a
 * reconnecting client resume), then fanned out through the cache's pub/sub, so every instance
 * pushes it to its own sockets. While Redis is down pub/sub reaches this instance only. When it
 * is back (the cache's `resync`), each instance publishes again what it could not, and gives its
 * sockets from the table what was stored meanwhile: every socket gets each event once, without
 * reconnecting, whichever instance comes back first (issue 27).
 */
export function createRealtimeHub(deps: { db: Db; cache: Cache; clock: () => Date }) {
  const sockets = new Set<Connection>();
  let subscribed = false;
  let unsent: RealtimeEvent[] = [];

  const visibleTo = (e: RealtimeEvent, c: { principal: UserPrincipal; tenantId: number | null }) =>
    e.tenantId === c.tenantId && (e.userIds === null || e.userIds.includes(c.principal.userId));

  const send = (c: Connection, e: RealtimeEvent) => {
    if (c.had.has(e.id)) return;
    c.had.add(e.id);
    if (c.had.size > HAD_LIMIT) c.had.delete(c.had.values().next().value as number);
    c.lastId = Math.max(c.lastId, e.id);
    c.ws.send(JSON.stringify({ id: e.id, topic: e.topic, data: e.payload, createdAt: e.createdAt }));
  };

  async function ensureSubscribed() {
    if (subscribed) return;
    subscribed = true;
    await deps.cache.subscribe(CHANNEL, (raw) => {
      const e = JSON.parse(raw) as RealtimeEvent;
      for (const c of sockets) if (visibleTo(e, c)) send(c, e);
    });
  }

  /** Redis is back: publish again what went nowhere, then catch each socket up from the table. */
  async function recover() {
    const again = unsent;
    unsent = [];
    for (const e of again) await deps.cache.publish(CHANNEL, JSON.stringify(e));
    const waiting = [...sockets].filter((c) => c.since !== null);
    if (waiting.length === 0) return;
    const since = Math.min(...waiting.map((c) => c.since ?? 0));
    const rows = await deps.db
      .select()
      .from(realtimeEvents)
      .where(gt(realtimeEvents.id, since))
      .orderBy(asc(realtimeEvents.id))
      .limit(REPLAY_LIMIT);
    for (const c of waiting) {
      const from = c.since ?? 0;
      c.since = null;
      for (const r of rows) {
        const e = { ...r, createdAt: r.createdAt.toISOString() };
        if (e.id > from && visibleTo(e, c) && sockets.has(c)) send(c, e);
      }
    }
  }

  deps.cache.watch((event) => {
    if (event.type === 'down') for (const c of sockets) c.since ??= c.lastId;
    if (event.type === 'resync') void recover().catch(() => {}); // a socket that reconnects resumes anyway
  });

  const newestId = async () => {
    const [row] = await deps.db.select({ id: max(realtimeEvents.id) }).from(realtimeEvents);
    return row?.id ?? 0;
  };

  return {
    async publish(input: { topic: string; tenantId: number | null; userIds?: number[]; payload: unknown }) {
      const [row] = await deps.db
        .insert(realtimeEvents)
        .values({
          topic: input.topic,
          tenantId: platformKey(input.tenantId),
          userIds: input.userIds ?? null,
          payload: input.payload,
        })
        .returning();
      if (!row) return;
      const event: RealtimeEvent = {
        id: row.id,
        topic: row.topic,
        tenantId: row.tenantId,
        userIds: row.userIds,
        payload: row.payload,
        createdAt: row.createdAt.toISOString(),
      };
      await deps.cache.publish(CHANNEL, JSON.stringify(event));
      // it reached this instance's sockets only: published again when Redis is back
      if (deps.cache.state() !== 'up' && unsent.push(event) > HAD_LIMIT) unsent.shift();
      // Retention without a scheduler: each publish trims what is past the replay window.
      await deps.db
        .delete(realtimeEvents)
        .where(lt(realtimeEvents.createdAt, new Date(deps.clock().getTime() - KEEP_MS)));
    },

    /** Events after `lastEventId` that this user may see (bounded: the newest REPLAY_LIMIT). */
    async missed(principal: UserPrincipal, tenantId: number | null, lastEventId: number): Promise<RealtimeEvent[]> {
      const rows = await deps.db
        .select()
        .from(realtimeEvents)
        .where(
          and(
            gt(realtimeEvents.id, lastEventId),
            sameTenantKey(realtimeEvents.tenantId, tenantId),
            or(isNull(realtimeEvents.userIds), arrayContains(realtimeEvents.userIds, [principal.userId])),
          ),
        )
        .orderBy(asc(realtimeEvents.id))
        .limit(REPLAY_LIMIT);
      return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
    },

    /** `GET /api/ws?access_token=…&lastEventId=…` (RFC 6750 §2.3: browsers cannot set headers on a WebSocket). */
    register(app: FastifyInstance, resolveAuth: AuthResolver) {
      app.route({
        method: 'GET',
        url: '/api/ws',
        config: { operation: 'realtime.connect', auth: 'public', audit: false },
        schema: {
          tags: ['Notices'],
          summary: 'Live push over WebSocket; resume with lastEventId after a reconnect',
          operationId: 'realtime.connect',
          security: [],
          querystring: {
            type: 'object',
            required: ['access_token'],
            properties: {
              access_token: { type: 'string', minLength: 1, maxLength: 4096 },
              lastEventId: { type: 'integer', minimum: 0, maximum: INT8_SAFE_MAX },
            },
          },
          response: {
            101: { description: 'Switching to the WebSocket protocol', type: 'null' },
            // a plain GET (not an upgrade) is a 426; a bad query a 400
            ...Object.fromEntries([400, 426, 500, 503].map((code) => [code, { $ref: 'ErrorBody#' }])),
          },
        },
        handler: async () => {
          throw new AppError(426, 'realtime.upgrade_required', 'Connect with a WebSocket client');
        },
        wsHandler: async (socket, req) => {
          const q = req.query as { access_token: string; lastEventId?: number };
          const resolved = await resolveAuth(q.access_token, req);
          if (resolved?.principal.kind !== 'user') {
            socket.close(4401, 'invalid token');
            return;
          }
          await ensureSubscribed();
          const lastId = await newestId();
          const conn: Connection = {
            ws: socket,
            principal: resolved.principal,
            tenantId: resolved.tenantId,
            lastId,
            had: new Set(),
            since: deps.cache.state() === 'down' ? lastId : null,
          };
          sockets.add(conn);
          socket.on('close', () => sockets.delete(conn));
          if (q.lastEventId !== undefined) {
            for (const e of await this.missed(conn.principal, conn.tenantId, q.lastEventId)) send(conn, e);
          }
          socket.send(JSON.stringify({ topic: 'ready', data: { userId: conn.principal.userId } }));
        },
      });
    },

    /** Closes sockets of one session (forced logout) on this instance. */
    disconnectSession(sessionId: number) {
      for (const c of sockets) if (c.principal.sessionId === sessionId) c.ws.close(4401, 'session ended');
    },

    connectedUserIds(tenantId: number | null): Set<number> {
      const ids = new Set<number>();
      for (const c of sockets) if (c.tenantId === tenantId) ids.add(c.principal.userId);
      return ids;
    },

    closeAll() {
      for (const c of sockets) c.ws.close(1001, 'server shutting down');
      sockets.clear();
    },
  };
}
