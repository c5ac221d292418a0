import type { FastifyRequest } from 'fastify';
import type { Cache } from '../cache/cache.ts';
import { sha256 } from '../crypto/digest.ts';
import { httpErrors } from './errors.ts';

/**
 * At most `max` requests per `windowSeconds` (a fixed window that starts at the first request)
 * for each caller of one operation (route `rateLimit`); over it the kernel answers 429
 * `request.rate_limited` with `Retry-After`. Counters live in the cache: Redis when REDIS_URL is
 * set, so every instance counts together. `key` says who a caller is: the client IP (checked
 * before authentication), the signed-in principal (the IP for anonymous calls), or a key the
 * route computes (after authentication, so it may use `req.scope`; it runs in onRequest, before
 * the body is parsed). Numbers from configuration are read when the route is declared. While Redis
 * is down each instance counts on its own (`Cache.rateCount`): limits hold per instance.
 */
export type RateLimit = {
  max: number;
  windowSeconds: number;
  key: 'ip' | 'user' | ((req: FastifyRequest) => string);
};

/** A declaration mistake stops the start, rather than quietly limiting nothing (or everything). */
export function checkedRateLimit(operation: string, limit: RateLimit | undefined): RateLimit | undefined {
  const whole = (n: number) => Number.isInteger(n) && n >= 1;
  if (limit && !(whole(limit.max) && whole(limit.windowSeconds))) {
    throw new Error(`${operation}: rateLimit.max and rateLimit.windowSeconds must be whole numbers ≥ 1`);
  }
  return limit;
}

/** Counts a request against the operation's limit; throws the 429 past it. */
export function rateLimiter(cache: Pick<Cache, 'rateCount'>) {
  return async (req: FastifyRequest, operation: string, limit: RateLimit): Promise<void> => {
    const key = `ratelimit:${operation}:${subjectOf(req, limit)}`;
    const { count, ttl } = await cache.rateCount(key, limit.windowSeconds);
    if (count > limit.max) throw httpErrors.rateLimited(Math.max(1, ttl));
  };
}

function subjectOf(req: FastifyRequest, limit: RateLimit): string {
  // hashed: a computed key may carry caller input of any length
  if (typeof limit.key === 'function') return `key:${sha256(limit.key(req))}`;
  const p = req.scope.principal;
  if (limit.key === 'user' && p?.kind === 'user') return `user:${p.userId}`;
  if (limit.key === 'user' && p?.kind === 'member') return `member:${p.memberId}`;
  if (limit.key === 'user' && p?.kind === 'app') return `app:${p.appId}`;
  return `ip:${req.ip}`;
}
