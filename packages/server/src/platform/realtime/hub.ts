import { and, arrayContains, asc, gt, isNull, lt, or } from 'drizzle-orm';
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

/**
 * WebSocket push to signed-in users. An event is stored first (its id orders it and lets a
 * reconnecting client resume), then fanned out through the cache's pub/sub, so every instance
 * pushes it to its own sockets.
 */
export function createRealtimeHub(deps: { db: Db; cache: Cache; clock: () => Date }) {
  const sockets = new Set<{ ws: WebSocket; principal: UserPrincipal; tenantId: number | null }>();
  let subscribed = false;

  const visibleTo = (e: RealtimeEvent, c: { principal: UserPrincipal; tenantId: number | null }) =>
    e.tenantId === c.tenantId && (e.userIds === null || e.userIds.includes(c.principal.userId));

  const send = (ws: WebSocket, e: RealtimeEvent) =>
    ws.send(JSON.stringify({ id: e.id, topic: e.topic, data: e.payload, createdAt: e.createdAt }));

  async function ensureSubscribed() {
    if (subscribed) return;
    subscribed = true;
    await deps.cache.subscribe(CHANNEL, (raw) => {
      const e = JSON.parse(raw) as RealtimeEvent;
      for (const c of sockets) if (visibleTo(e, c)) send(c.ws, e);
    });
  }

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
          const conn = { ws: socket, principal: resolved.principal, tenantId: resolved.tenantId };
          sockets.add(conn);
          socket.on('close', () => sockets.delete(conn));
          if (q.lastEventId !== undefined) {
            for (const e of await this.missed(conn.principal, conn.tenantId, q.lastEventId)) send(socket, e);
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
