import { AppError } from '../http/errors.ts';
import { memoryCache } from './memory-cache.ts';
import { redisCache } from './redis-cache.ts';

/**
 * Short-lived shared state: captchas, rate-limit counters, the principal cache, pub/sub.
 * Redis when REDIS_URL is set (required for several instances); an in-process map otherwise.
 * Every key gets the configured prefix, so tests and deployments can share one Redis.
 *
 * Redis can go away. Then every call fails fast with `CacheUnavailable` (503
 * `ops.cache_unavailable`), never a hang: callers with a safe fallback use it (the principal
 * cache reads PostgreSQL, rate limits count per instance, pub/sub delivers on this instance),
 * the rest answer the 503 (docs/decisions/0040-dependency-faults.md).
 */
export type Cache = {
  kind: 'memory' | 'redis';
  /** whether Redis answers now: `connecting` until the first connection, `down` during an outage */
  state(): CacheState;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Reads and deletes in one step: single-use values (captcha answers). */
  take(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<void>;
  /** Increments a counter; the first increment starts its TTL window. Returns the new value and seconds left. */
  incr(key: string, windowSeconds: number): Promise<{ count: number; ttl: number }>;
  /**
   * `incr` for rate limits: while Redis is down, an in-process counter takes over, so each
   * instance still limits on its own (open, but neither unlimited nor locking everyone out).
   */
  rateCount(key: string, windowSeconds: number): Promise<{ count: number; ttl: number }>;
  /** Never fails for want of Redis: while it is down the message reaches this instance's subscribers only. */
  publish(channel: string, message: string): Promise<void>;
  /** Never fails for want of Redis: the subscription is made (again) whenever Redis is back. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void>;
  /** One bounded round trip (PING), for the health check; throws CacheUnavailable. */
  probe(): Promise<void>;
  /** Outages, recoveries and failed calls, for logs and metrics; answers the way to stop listening. */
  watch(listener: (event: CacheEvent) => void): () => void;
  close(): Promise<void>;
};

export type CacheState = 'connecting' | 'up' | 'down';

export type CacheEvent =
  /** Redis stopped answering: calls fail fast from now on */
  | { type: 'down'; error: Error }
  /** Redis answers again after `downForMs` */
  | { type: 'up'; downForMs: number }
  /**
   * A connection came back after an outage: messages published meanwhile were lost (another
   * instance's invalidations) and writes may have been refused: what relies on them resyncs.
   */
  | { type: 'resync' }
  /** one call that failed for want of Redis */
  | { type: 'failure'; error: Error };

/** Redis cannot be reached (refused, timed out, reconnecting): the caller may retry shortly. */
export class CacheUnavailable extends AppError {
  constructor(cause?: unknown) {
    super(503, 'ops.cache_unavailable', 'The cache does not answer; try again shortly', {
      retryAfter: 5,
      internal: cause instanceof Error ? cause.message : undefined,
    });
    if (cause !== undefined) this.cause = cause;
  }
}

/** `fallback` when the call failed for want of Redis; any other error is thrown on. */
export async function orWhenUnavailable<T>(call: Promise<T>, fallback: T): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof CacheUnavailable) return fallback;
    throw err;
  }
}

export function createCache(opts: { redisUrl: string | null; prefix: string }): Cache {
  return opts.redisUrl ? redisCache(opts.redisUrl, opts.prefix) : memoryCache();
}
