import { Redis } from 'ioredis';

/**
 * Short-lived shared state: captchas, rate-limit counters, the principal cache, pub/sub.
 * Redis when REDIS_URL is set (required for several instances); an in-process map otherwise.
 * Every key gets the configured prefix, so tests and deployments can share one Redis.
 */
export type Cache = {
  kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Reads and deletes in one step: single-use values (captcha answers). */
  take(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<void>;
  /** Increments a counter; the first increment starts its TTL window. Returns the new value and seconds left. */
  incr(key: string, windowSeconds: number): Promise<{ count: number; ttl: number }>;
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
  close(): Promise<void>;
};

export function createCache(opts: { redisUrl: string | null; prefix: string }): Cache {
  return opts.redisUrl ? redisCache(opts.redisUrl, opts.prefix) : memoryCache();
}

function memoryCache(): Cache {
  const store = new Map<string, { value: string; expires: number }>();
  const listeners = new Map<string, Set<(m: string) => void>>();
  const live = (key: string) => {
    const e = store.get(key);
    if (!e) return null;
    if (e.expires <= Date.now()) {
      store.delete(key);
      return null;
    }
    return e;
  };
  // Expired entries are dropped when read; a sweep keeps never-read keys from piling up.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, e] of store) if (e.expires <= now) store.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    kind: 'memory',
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, ttl) => {
      store.set(key, { value, expires: Date.now() + ttl * 1000 });
    },
    take: async (key) => {
      const e = live(key);
      store.delete(key);
      return e?.value ?? null;
    },
    del: async (...keys) => {
      for (const k of keys) store.delete(k);
    },
    incr: async (key, windowSeconds) => {
      const e = live(key);
      if (!e) {
        store.set(key, { value: '1', expires: Date.now() + windowSeconds * 1000 });
        return { count: 1, ttl: windowSeconds };
      }
      e.value = String(Number(e.value) + 1);
      return { count: Number(e.value), ttl: Math.ceil((e.expires - Date.now()) / 1000) };
    },
    publish: async (channel, message) => {
      for (const fn of listeners.get(channel) ?? []) fn(message);
    },
    subscribe: async (channel, fn) => {
      const set = listeners.get(channel) ?? new Set();
      set.add(fn);
      listeners.set(channel, set);
    },
    close: async () => {
      clearInterval(sweep);
      store.clear();
      listeners.clear();
    },
  };
}

function redisCache(url: string, prefix: string): Cache {
  const redis = new Redis(url, { keyPrefix: prefix, maxRetriesPerRequest: 3, lazyConnect: false });
  let subscriber: Redis | null = null;
  const handlers = new Map<string, Set<(m: string) => void>>();
  return {
    kind: 'redis',
    get: (key) => redis.get(key),
    set: async (key, value, ttl) => {
      await redis.set(key, value, 'EX', ttl);
    },
    take: (key) => redis.getdel(key),
    del: async (...keys) => {
      if (keys.length) await redis.del(...keys);
    },
    incr: async (key, windowSeconds) => {
      // INCR then EXPIRE NX in one round trip: the window starts at the first hit only.
      const res = await redis.multi().incr(key).expire(key, windowSeconds, 'NX').ttl(key).exec();
      const count = Number(res?.[0]?.[1] ?? 0);
      const ttl = Number(res?.[2]?.[1] ?? windowSeconds);
      return { count, ttl: ttl > 0 ? ttl : windowSeconds };
    },
    publish: async (channel, message) => {
      await redis.publish(prefix + channel, message);
    },
    subscribe: async (channel, fn) => {
      if (!subscriber) {
        subscriber = new Redis(url, { maxRetriesPerRequest: null });
        subscriber.on('message', (ch: string, msg: string) => {
          for (const h of handlers.get(ch) ?? []) h(msg);
        });
      }
      const full = prefix + channel;
      const set = handlers.get(full) ?? new Set();
      set.add(fn);
      handlers.set(full, set);
      await subscriber.subscribe(full);
    },
    close: async () => {
      await Promise.all([redis.quit(), subscriber?.quit()]);
    },
  };
}
