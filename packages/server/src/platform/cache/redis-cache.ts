import { Redis, type RedisOptions } from 'ioredis';
import { type Cache, type CacheEvent, type CacheState, CacheUnavailable } from './cache.ts';
import { memoryCache } from './memory-cache.ts';

/** A command waits at most this long, also for a server that accepted the connection and froze. */
const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;
/** While down and still connected (a frozen server), how often a PING checks whether it is back. */
const PING_EVERY_MS = 1_000;

/**
 * Reconnects in the background with backoff (0.1 s doubling to 2 s, jittered so instances do not
 * reconnect in step), forever: Redis coming back is noticed within about two seconds.
 */
const retryStrategy = (times: number) => Math.min(100 * 2 ** Math.min(times, 5), 2_000) + Math.random() * 200;

const OPTIONS: RedisOptions = {
  commandTimeout: COMMAND_TIMEOUT_MS,
  connectTimeout: CONNECT_TIMEOUT_MS,
  retryStrategy,
  // The offline queue only serves the first connection: once Redis has been seen down, calls
  // fail at once instead of queueing for a reconnect (issue 27: a login hung past 8 s).
  maxRetriesPerRequest: 1,
};

/** An answer from Redis (a wrong type, a script error) is a bug to report, not an outage. */
const isAnswer = (err: unknown) => err instanceof Error && err.name === 'ReplyError';

export function redisCache(url: string, prefix: string): Cache {
  const redis = new Redis(url, { ...OPTIONS, keyPrefix: prefix });
  const listeners = new Set<(e: CacheEvent) => void>();
  const emit = (e: CacheEvent) => {
    for (const l of listeners) l(e);
  };
  // Rate limits count here while Redis is down.
  const local = memoryCache();

  let state: CacheState = 'connecting';
  let downSince = 0;
  let lastError: Error = new Error('Redis is not connected');
  let pinger: NodeJS.Timeout | null = null;
  let closed = false;
  /** an outage of either connection since the last `resync` */
  let resyncDue = false;

  function markDown(error: Error) {
    lastError = error;
    if (state === 'down' || closed) return;
    state = 'down';
    resyncDue = true;
    downSince = Date.now();
    emit({ type: 'down', error });
    // A closed connection comes back with a 'ready' event; a frozen one stays open and
    // only a command answered again tells it is back.
    pinger = setInterval(() => {
      if (redis.status === 'ready') redis.ping().then(markUp, () => {});
    }, PING_EVERY_MS);
    pinger.unref();
  }

  function markUp() {
    if (pinger) clearInterval(pinger);
    pinger = null;
    const was = state;
    state = 'up';
    if (was === 'down') emit({ type: 'up', downForMs: Date.now() - downSince });
    resyncIfBack();
  }

  /**
   * `resync` once after an outage, when both connections are back and the subscriptions made
   * again: a listener that catches up then misses nothing published after (realtime/hub.ts).
   */
  function resyncIfBack() {
    if (!resyncDue || state !== 'up' || (subscriber && subscriberState !== 'up')) return;
    resyncDue = false;
    emit({ type: 'resync' });
  }

  redis.on('ready', markUp);
  // Without a listener ioredis prints every failed reconnect; outages are logged once, by the app.
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  // the error that closed it (ECONNREFUSED…) is what the health report and the log show
  redis.on('close', () => markDown(lastError));

  async function call<T>(run: () => Promise<T>): Promise<T> {
    if (state === 'down') {
      emit({ type: 'failure', error: lastError });
      throw new CacheUnavailable(lastError);
    }
    try {
      return await run();
    } catch (err) {
      if (isAnswer(err) || closed) throw err;
      const error = err instanceof Error ? err : new Error(String(err));
      emit({ type: 'failure', error });
      markDown(error);
      throw new CacheUnavailable(error);
    }
  }

  const incr: Cache['incr'] = (key, windowSeconds) =>
    call(async () => {
      // INCR then EXPIRE NX in one round trip: the window starts at the first hit only.
      const res = await redis.multi().incr(key).expire(key, windowSeconds, 'NX').ttl(key).exec();
      const failed = res?.find(([err]) => err)?.[0];
      if (failed) throw failed;
      const count = Number(res?.[0]?.[1] ?? 0);
      const ttl = Number(res?.[2]?.[1] ?? windowSeconds);
      return { count, ttl: ttl > 0 ? ttl : windowSeconds };
    });

  // Pub/sub has a connection of its own (a subscribed connection takes no other commands).
  let subscriber: Redis | null = null;
  let subscriberState: CacheState = 'connecting';
  const handlers = new Map<string, Set<(m: string) => void>>();
  const deliverHere = (full: string, message: string) => {
    for (const h of handlers.get(full) ?? []) h(message);
  };

  function subscriberConnection(): Redis {
    if (subscriber) return subscriber;
    const s = new Redis(url, { ...OPTIONS, autoResubscribe: false });
    s.on('message', deliverHere);
    s.on('error', () => {});
    s.on('close', () => {
      if (subscriberState !== 'connecting') resyncDue = true;
      subscriberState = 'down';
    });
    s.on('ready', async () => {
      // every channel, those first asked for during the outage too
      if (handlers.size) await s.subscribe(...handlers.keys()).catch(() => {});
      subscriberState = 'up';
      resyncIfBack();
    });
    subscriber = s;
    return s;
  }

  return {
    kind: 'redis',
    state: () => state,
    get: (key) => call(() => redis.get(key)),
    set: (key, value, ttl) =>
      call(async () => {
        await redis.set(key, value, 'EX', ttl);
      }),
    take: (key) => call(() => redis.getdel(key)),
    del: (...keys) =>
      call(async () => {
        if (keys.length) await redis.del(...keys);
      }),
    incr,
    async rateCount(key, windowSeconds) {
      try {
        return await incr(key, windowSeconds);
      } catch (err) {
        if (err instanceof CacheUnavailable) return local.incr(key, windowSeconds);
        throw err;
      }
    },
    async publish(channel, message) {
      const full = prefix + channel;
      try {
        await call(() => redis.publish(full, message));
      } catch (err) {
        if (!(err instanceof CacheUnavailable)) throw err;
        deliverHere(full, message);
        return;
      }
      // published, but this instance's own subscription is down: it would not hear it back
      if (subscriber && subscriberState !== 'up') deliverHere(full, message);
    },
    async subscribe(channel, fn) {
      const full = prefix + channel;
      const set = handlers.get(full) ?? new Set();
      set.add(fn);
      handlers.set(full, set);
      const s = subscriberConnection();
      // Connecting for the first time: its queue holds the command (a second at most). During an
      // outage nothing is waited for: the next 'ready' subscribes every channel.
      if (subscriberState !== 'down') await s.subscribe(full).catch(() => {});
    },
    async probe() {
      await call(() => redis.ping());
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      if (pinger) clearInterval(pinger);
      listeners.clear();
      await local.close();
      // QUIT waits for an answer; a connection that is down is just dropped
      await Promise.all(
        [redis, subscriber].map(async (c) => {
          if (!c) return;
          if (c.status === 'ready') await c.quit().catch(() => c.disconnect());
          else c.disconnect();
        }),
      );
    },
  };
}
