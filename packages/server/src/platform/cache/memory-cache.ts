import type { Cache } from './cache.ts';

/** The in-process cache (no REDIS_URL): one instance only; it never fails, so it never goes down. */
export function memoryCache(): Cache {
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
  const incr: Cache['incr'] = async (key, windowSeconds) => {
    const e = live(key);
    if (!e) {
      store.set(key, { value: '1', expires: Date.now() + windowSeconds * 1000 });
      return { count: 1, ttl: windowSeconds };
    }
    e.value = String(Number(e.value) + 1);
    return { count: Number(e.value), ttl: Math.ceil((e.expires - Date.now()) / 1000) };
  };
  return {
    kind: 'memory',
    state: () => 'up',
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
    incr,
    rateCount: incr,
    publish: async (channel, message) => {
      for (const fn of listeners.get(channel) ?? []) fn(message);
    },
    subscribe: async (channel, fn) => {
      const set = listeners.get(channel) ?? new Set();
      set.add(fn);
      listeners.set(channel, set);
    },
    probe: async () => {},
    watch: () => () => {},
    close: async () => {
      clearInterval(sweep);
      store.clear();
      listeners.clear();
    },
  };
}
