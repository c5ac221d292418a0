import type { Cache } from '../../../../platform/cache/cache.ts';

/**
 * Where downloaded platform certificates and the refresh throttle live: the subset of the shared
 * cache (platform/cache) the adapter needs, so the payment module can pass the shared cache and
 * every instance sees the same certificates and the same throttle. The in-memory default serves
 * one process (and tests, with their clock).
 */
export type CertificateCache = Pick<Cache, 'get' | 'set' | 'incr'>;

export function memoryCertificateCache(clock: () => Date): CertificateCache {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= clock().getTime()) entries.delete(key);
    return entries.get(key);
  };
  return {
    get: async (key) => live(key)?.value ?? null,
    set: async (key, value, ttlSeconds) => {
      entries.set(key, { value, expiresAt: clock().getTime() + ttlSeconds * 1000 });
    },
    incr: async (key, windowSeconds) => {
      const entry = live(key);
      const now = clock().getTime();
      const next = entry
        ? { value: String(Number(entry.value) + 1), expiresAt: entry.expiresAt }
        : { value: '1', expiresAt: now + windowSeconds * 1000 };
      entries.set(key, next);
      return { count: Number(next.value), ttl: Math.ceil((next.expiresAt - now) / 1000) };
    },
  };
}
